// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "trace/reader.hpp"

namespace jp::trace {

// Samples in time order, each keeping its flags; equal times keep the order
// they were written in (a block holds a late interpolated edge after later
// readings). Does nothing to samples already in order.
void sort_by_time(ChannelSamples& s);

} // namespace jp::trace
