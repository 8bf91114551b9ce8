// SPDX-License-Identifier: BSD-3-Clause
// energy-lstm: train the load forecaster on 2015–2017 (validating on 2018) or
// forecast 2019 and report the study's MAPE.
#include "common.hpp"
#include "data/load_data.hpp"
#include "data/synthetic_load.hpp"
#include "models.hpp"
#include "workloads.hpp"

#include <fmt/format.h>

namespace jp::workload {
namespace {

LoadSplits load_splits(const Options& o) {
    Phase phase{"setup"};
    Result<std::vector<LoadSeries>> series;
    if (o.data.empty()) {
        SyntheticLoadOptions so;
        so.countries = o.synthetic_count > 0 ? o.synthetic_count : so.countries;
        so.seed = o.seed;
        series = synthetic_load(so);
    } else if (std::filesystem::is_directory(o.data)) {
        series = read_load_dir(o.data);
    } else {
        auto one = read_load_csv(o.data);
        if (!one) {
            throw std::runtime_error(one.error().message());
        }
        series = std::vector<LoadSeries>{std::move(*one)};
    }
    if (!series) {
        throw std::runtime_error(series.error().message());
    }
    auto splits = make_splits(std::move(*series));
    if (!splits) {
        throw std::runtime_error(splits.error().message());
    }
    for (std::size_t c = 0; c < splits->train.countries.size(); ++c) {
        const auto& f = splits->filled[c];
        if (f.missing + f.zeros > 0) {
            fmt::print("{}: filled {} missing and {} zero hours\n", splits->train.countries[c],
                       f.missing, f.zeros);
        }
    }
    return std::move(*splits);
}

torch::Tensor to_tensor(const LoadSet& set) {
    const auto c = static_cast<std::int64_t>(set.countries.size());
    const auto t = static_cast<std::int64_t>(set.hours);
    // from_blob does not own the memory: clone so the tensor outlives the set.
    return torch::from_blob(const_cast<float*>(set.values.data()), {c, t}).clone();
}

// All 336-hour windows of a (countries, hours) series as a view (C, T−335, 336),
// of which the first T − 336 per country are used, as the study counts them.
struct Windows {
    torch::Tensor view;
    std::int64_t per_country = 0;
    std::int64_t count = 0;

    explicit Windows(const torch::Tensor& series)
        : view(series.unfold(1, k_history + k_horizon, 1)),
          per_country(static_cast<std::int64_t>(
              windows_per_country(static_cast<std::size_t>(series.size(1))))),
          count(series.size(0) * per_country) {
        if (per_country == 0) {
            throw std::runtime_error("a split is shorter than 336 hours");
        }
    }
    // (B, 168, 1) inputs and targets of the given window indices.
    std::pair<torch::Tensor, torch::Tensor> batch(const torch::Tensor& index) const {
        auto w =
            view.index({torch::div(index, per_country, "floor"), index.remainder(per_country)});
        constexpr auto h = static_cast<std::int64_t>(k_history);
        return {w.slice(1, 0, h).unsqueeze(2), w.slice(1, h).unsqueeze(2)};
    }
};

double validation_loss(LoadForecaster& model,
                       const Windows& valid,
                       const Options& o,
                       torch::Device device) {
    torch::NoGradGuard no_grad;
    model->eval();
    const auto batches = batches_of(valid.count, o);
    double sum = 0;
    for (std::int64_t b = 0; b < batches; ++b) {
        auto index = torch::arange(b * o.batch_size, (b + 1) * o.batch_size, torch::kLong);
        auto [x, y] = valid.batch(index);
        sum += torch::mse_loss(model->forward(x.to(device)), y.to(device)).item<double>();
    }
    model->train();
    return batches > 0 ? sum / static_cast<double>(batches) : 0.0;
}

} // namespace

int energy_lstm_train(const Options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto device = setup(o);
    auto splits = load_splits(o);
    normalise(splits.train);
    normalise(splits.valid);
    const Windows train{to_tensor(splits.train)};
    const Windows valid{to_tensor(splits.valid)};
    LoadForecaster model;
    model->to(device);
    torch::optim::Adam optimizer{model->parameters(), torch::optim::AdamOptions(1e-3)};
    const int epochs = o.epochs > 0 ? o.epochs : 30;
    const auto batches = batches_of(train.count, o);
    fmt::print("energy-lstm train: {} countries, {} training windows ({} batches of {} per "
               "epoch), {} validation windows, {} parameters, {} epochs, {} threads\n",
               splits.train.countries.size(), train.count, batches, o.batch_size, valid.count,
               parameter_count(*model), epochs, torch::get_num_threads());
    std::fflush(stdout);
    auto generator = at::detail::createCPUGenerator(o.seed);
    double train_loss = 0;
    double valid_loss = 0;
    for (int e = 1; e <= epochs; ++e) {
        Phase epoch{"epoch"};
        {
            Phase phase{"train"};
            auto order = torch::randperm(train.count, generator, torch::kLong);
            double sum = 0;
            for (std::int64_t b = 0; b < batches; ++b) {
                auto [x, y] = train.batch(order.slice(0, b * o.batch_size, (b + 1) * o.batch_size));
                optimizer.zero_grad();
                auto loss = torch::mse_loss(model->forward(x.to(device)), y.to(device));
                loss.backward();
                optimizer.step();
                sum += loss.item<double>();
            }
            train_loss = batches > 0 ? sum / static_cast<double>(batches) : 0.0;
        }
        {
            Phase phase{"validation"};
            valid_loss = validation_loss(model, valid, o, device);
        }
        fmt::print("Epoch {}: Training Loss = {:.6f}, Validation Loss = {:.6f} ({:.0f} s)\n", e,
                   train_loss, valid_loss, seconds_since(t0));
        std::fflush(stdout);
        save_model(model, o.model, device); // a long run stopped early keeps its last epoch
    }
    fmt::print("saved {}\n", o.model.string());
    write_metrics(o, {{"workload", "energy-lstm"},
                      {"mode", "train"},
                      {"epochs", epochs},
                      {"batches_per_epoch", batches},
                      {"train_loss", train_loss},
                      {"valid_loss", valid_loss},
                      {"seconds", seconds_since(t0)}});
    return 0;
}

int energy_lstm_predict(const Options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    require_model(o, "energy-lstm");
    const auto device = setup(o);
    auto splits = load_splits(o);
    LoadForecaster model;
    {
        Phase phase{"setup"};
        torch::load(model, o.model.string());
    }
    model->to(device);
    model->eval();
    torch::NoGradGuard no_grad;
    const auto& test = splits.test;
    const Windows windows{to_tensor(test)};
    const int chunk = std::max(o.batch_size, 1024);
    // --limit-batches: at most that many chunks of each country's windows (short runs).
    const std::int64_t per_country =
        o.limit_batches > 0
            ? std::min<std::int64_t>(windows.per_country,
                                     static_cast<std::int64_t>(o.limit_batches) * chunk)
            : windows.per_country;
    const auto evaluated = per_country * static_cast<std::int64_t>(test.countries.size());
    nlohmann::json by_country = nlohmann::json::object();
    double weighted = 0;
    std::int64_t values = 0;
    Phase inference{"inference"};
    for (int k = 0; k < o.repeat_data; ++k) {
        for (std::size_t c = 0; c < test.countries.size(); ++c) {
            // As the study's evaluation: one country per batch, scaled by the min and
            // max of its own input windows, forecasts scaled back to MW.
            auto index = torch::arange(
                static_cast<std::int64_t>(c) * windows.per_country,
                static_cast<std::int64_t>(c) * windows.per_country + per_country, torch::kLong);
            auto [x, y] = windows.batch(index);
            const auto lo = x.min();
            const auto span = x.max() - lo;
            if (span.item<float>() <= 0.0F) {
                throw std::runtime_error(test.countries[c] +
                                         ": the test inputs are constant, so they cannot be "
                                         "scaled as the study does and the MAPE is undefined");
            }
            std::vector<torch::Tensor> outs;
            for (std::int64_t s = 0; s < per_country; s += chunk) {
                auto xs = x.slice(0, s, std::min(s + chunk, per_country));
                outs.push_back(model->forward(((xs - lo) / span).to(device)).to(torch::kCPU));
            }
            auto forecast = (torch::cat(outs) * span + lo).contiguous();
            auto reference = y.contiguous();
            auto mape = mape_percent(
                {forecast.data_ptr<float>(), static_cast<std::size_t>(forecast.numel())},
                {reference.data_ptr<float>(), static_cast<std::size_t>(reference.numel())});
            if (!mape) {
                throw std::runtime_error(test.countries[c] + ": " + mape.error().message());
            }
            if (k == 0) {
                by_country[test.countries[c]] = *mape;
            }
            weighted += *mape * static_cast<double>(reference.numel());
            values += reference.numel();
        }
    }
    const double mape = weighted / static_cast<double>(values);
    for (const auto& [country, m] : by_country.items()) {
        fmt::print("{}: MAPE {:.2f} %\n", country, m.get<double>());
    }
    fmt::print("MAPE: {:.3f}% over {} forecast windows x {} ({} s)\n", mape, evaluated,
               o.repeat_data, static_cast<int>(seconds_since(t0)));
    write_metrics(o, {{"workload", "energy-lstm"},
                      {"mode", "predict"},
                      {"mape_percent", mape},
                      {"mape_percent_by_country", by_country},
                      {"windows", evaluated},
                      {"repeat_data", o.repeat_data},
                      {"seconds", seconds_since(t0)}});
    return 0;
}

} // namespace jp::workload
