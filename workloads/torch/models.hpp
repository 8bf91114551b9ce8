// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The study's two models, as LibTorch modules.
#include <torch/torch.h>

namespace jp::workload {

// energy-lstm: LSTM(1 → 48, one layer, batch first) and Linear(48 → 1) at every
// step; output step t forecasts hour t + 168. h0 = 0 and, as in the study,
// c0 ~ N(0, 1) (drawn from torch's seeded generator).
class LoadForecasterImpl : public torch::nn::Module {
public:
    explicit LoadForecasterImpl(std::int64_t hidden = 48);
    torch::Tensor forward(const torch::Tensor& x); // (B, 168, 1) → (B, 168, 1)

private:
    std::int64_t m_hidden;
    torch::nn::LSTM m_lstm{nullptr};
    torch::nn::Linear m_head{nullptr};
};
TORCH_MODULE(LoadForecaster);

// health-vgg: VGG-19 with batch norm on one channel, the study's unusual
// MaxPool2d(kernel 2, stride 3) (224 → 75 → 25 → 8 → 3 → 1), AvgPool2d(1, 2),
// Linear(512 → 2).
class VggImpl : public torch::nn::Module {
public:
    VggImpl();
    torch::Tensor forward(const torch::Tensor& x); // (B, 1, 224, 224) → (B, 2)

private:
    torch::nn::Sequential m_features{nullptr};
    torch::nn::Linear m_classifier{nullptr};
};
TORCH_MODULE(Vgg);

[[nodiscard]] std::int64_t parameter_count(torch::nn::Module& module);

} // namespace jp::workload
