// SPDX-License-Identifier: BSD-3-Clause
#include "models.hpp"

#include <array>

namespace jp::workload {

LoadForecasterImpl::LoadForecasterImpl(std::int64_t hidden)
    : m_hidden(hidden),
      m_lstm(register_module(
          "lstm",
          torch::nn::LSTM(torch::nn::LSTMOptions(1, hidden).num_layers(1).batch_first(true)))),
      m_head(register_module("head", torch::nn::Linear(hidden, 1))) {}

torch::Tensor LoadForecasterImpl::forward(const torch::Tensor& x) {
    const auto batch = x.size(0);
    auto opts = x.options();
    auto h0 = torch::zeros({1, batch, m_hidden}, opts);
    auto c0 = torch::randn({1, batch, m_hidden}, opts);
    auto out = std::get<0>(m_lstm->forward(x, std::make_tuple(h0, c0)));
    return m_head->forward(out);
}

VggImpl::VggImpl() {
    constexpr int M = 0; // a pooling layer
    constexpr std::array cfg{64,  64,  M,   128, 128, M,   256, 256, 256, 256, M,
                             512, 512, 512, 512, M,   512, 512, 512, 512, M};
    torch::nn::Sequential features;
    std::int64_t in = 1;
    for (int c : cfg) {
        if (c == M) {
            features->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2).stride(3)));
            continue;
        }
        features->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(in, c, 3).padding(1)));
        features->push_back(torch::nn::BatchNorm2d(c));
        features->push_back(torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
        in = c;
    }
    features->push_back(torch::nn::AvgPool2d(torch::nn::AvgPool2dOptions(1).stride(2)));
    m_features = register_module("features", features);
    m_classifier = register_module("classifier", torch::nn::Linear(512, 2));
}

torch::Tensor VggImpl::forward(const torch::Tensor& x) {
    auto f = m_features->forward(x);
    return m_classifier->forward(f.flatten(1));
}

std::int64_t parameter_count(torch::nn::Module& module) {
    std::int64_t n = 0;
    for (const auto& p : module.parameters()) {
        n += p.numel();
    }
    return n;
}

} // namespace jp::workload
