// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "common.hpp"

namespace jp::workload {

int energy_lstm_train(const Options& o);
int energy_lstm_predict(const Options& o);
int health_vgg_train(const Options& o);
int health_vgg_predict(const Options& o);

} // namespace jp::workload
