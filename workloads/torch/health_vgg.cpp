// SPDX-License-Identifier: BSD-3-Clause
// health-vgg: train the chest x-ray classifier (validating every epoch) or
// classify the test images and report the accuracy.
#include "common.hpp"
#include "data/covidx.hpp"
#include "data/images.hpp"
#include "models.hpp"
#include "workloads.hpp"

#include <ATen/Parallel.h>
#include <cmath>
#include <fmt/format.h>
#include <numbers>

namespace jp::workload {
namespace {

constexpr int k_size = 224;

// A split: image files from a COVIDx-style folder, or synthetic pictures.
class ImageSet {
public:
    static ImageSet files(std::vector<ImageEntry> entries) {
        ImageSet s;
        s.m_files = std::move(entries);
        return s;
    }
    static ImageSet synthetic(std::size_t first, std::size_t count, std::uint64_t seed) {
        ImageSet s;
        s.m_first = first;
        s.m_count = count;
        s.m_seed = seed;
        return s;
    }
    [[nodiscard]] std::int64_t size() const {
        return static_cast<std::int64_t>(m_files.empty() ? m_count : m_files.size());
    }
    [[nodiscard]] std::optional<int> label(std::int64_t i) const {
        const auto u = static_cast<std::size_t>(i);
        return m_files.empty() ? synthetic_label(m_seed, m_first + u) : m_files[u].label;
    }
    [[nodiscard]] Image image(std::int64_t i) const {
        const auto u = static_cast<std::size_t>(i);
        if (m_files.empty()) {
            return synthetic_xray(m_seed, m_first + u, synthetic_label(m_seed, m_first + u), 256);
        }
        auto im = decode_image(m_files[u].path);
        if (!im) {
            throw std::runtime_error(im.error().message());
        }
        return std::move(*im);
    }

private:
    std::vector<ImageEntry> m_files;
    std::size_t m_first = 0;
    std::size_t m_count = 0;
    std::uint64_t m_seed = 0;
};

ImageSet open_split(const Options& o, const std::string& split, bool require_labels) {
    if (o.data.empty()) {
        const auto n = static_cast<std::size_t>(o.synthetic_count > 0 ? o.synthetic_count : 256);
        const std::size_t small = std::max<std::size_t>(2, n / 4);
        const std::size_t first = split == "train" ? 0 : split == "valid" ? n : n + small;
        return ImageSet::synthetic(first, split == "train" ? n : small, o.seed);
    }
    auto entries =
        read_image_list(o.data / (split + ".csv"), images_dir_for(o.data, split), require_labels);
    if (!entries) {
        throw std::runtime_error(entries.error().message());
    }
    return ImageSet::files(std::move(*entries));
}

// Decodes and transforms the items of a batch in parallel; the augmentation
// of item i in epoch e is seeded by (seed, e, i) so it does not depend on threads.
std::pair<torch::Tensor, torch::Tensor> make_batch(const ImageSet& set,
                                                   const std::vector<std::int64_t>& items,
                                                   std::optional<std::uint64_t> augment) {
    const auto n = static_cast<std::int64_t>(items.size());
    auto x = torch::empty({n, 1, k_size, k_size});
    auto y = torch::empty({n}, torch::kLong);
    float* xs = x.data_ptr<float>();
    std::int64_t* ys = y.data_ptr<std::int64_t>();
    at::parallel_for(0, n, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t b = begin; b < end; ++b) {
            const auto i = items[static_cast<std::size_t>(b)];
            const auto image = set.image(i);
            std::vector<float> pixels;
            if (augment) {
                SplitMix rng{*augment * 0x100000001b3ULL + static_cast<std::uint64_t>(i)};
                pixels = train_transform(image, rng, k_size);
            } else {
                pixels = eval_transform(image, k_size);
            }
            std::copy(pixels.begin(), pixels.end(), xs + b * k_size * k_size);
            ys[b] = set.label(i).value_or(-1);
        }
    });
    return {x, y};
}

std::vector<std::int64_t> range_of(std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> v;
    for (auto i = begin; i < end; ++i) {
        v.push_back(i);
    }
    return v;
}

// Correct predictions and items seen over the set (every item `repeat` times).
std::pair<std::int64_t, std::int64_t>
evaluate(Vgg& model, const ImageSet& set, const Options& o, torch::Device device, int repeat) {
    torch::NoGradGuard no_grad;
    model->eval();
    std::int64_t correct = 0;
    std::int64_t seen = 0;
    const auto n = set.size();
    const auto batches = (n + o.batch_size - 1) / o.batch_size;
    const auto limit =
        o.limit_batches > 0 ? std::min<std::int64_t>(batches, o.limit_batches) : batches;
    for (int k = 0; k < repeat; ++k) {
        for (std::int64_t b = 0; b < limit; ++b) {
            auto [x, y] = make_batch(
                set, range_of(b * o.batch_size, std::min(n, (b + 1) * o.batch_size)), std::nullopt);
            auto predicted = model->forward(x.to(device)).argmax(1).to(torch::kCPU);
            correct += predicted.eq(y).sum().item<std::int64_t>();
            seen += y.size(0);
        }
    }
    model->train();
    return {correct, seen};
}

double percent(std::pair<std::int64_t, std::int64_t> r) {
    return r.second > 0 ? 100.0 * static_cast<double>(r.first) / static_cast<double>(r.second)
                        : 0.0;
}

} // namespace

int health_vgg_train(const Options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto device = setup(o);
    at::globalContext().setDeterministicAlgorithms(true, false);
    std::optional<ImageSet> train;
    std::optional<ImageSet> valid;
    {
        Phase phase{"setup"};
        train = open_split(o, "train", true);
        valid = open_split(o, "valid", true);
    }
    Vgg model;
    model->to(device);
    constexpr double lr0 = 0.1;
    torch::optim::SGD optimizer{model->parameters(),
                                torch::optim::SGDOptions(lr0).momentum(0.9).nesterov(true)};
    const int epochs = o.epochs > 0 ? o.epochs : 250;
    const auto batches = batches_of(train->size(), o);
    fmt::print("health-vgg train: {} training and {} validation images, {} batches of {} per "
               "epoch, {} parameters, {} epochs, {} threads\n",
               train->size(), valid->size(), batches, o.batch_size, parameter_count(*model), epochs,
               torch::get_num_threads());
    std::fflush(stdout);
    auto generator = at::detail::createCPUGenerator(o.seed);
    double last_loss = 0;
    double accuracy = 0;
    for (int e = 0; e < epochs; ++e) {
        Phase epoch{"epoch"};
        // CosineAnnealingLR with T_max = epochs, stepped once per epoch.
        const double lr = lr0 * 0.5 * (1.0 + std::cos(std::numbers::pi * e / epochs));
        for (auto& group : optimizer.param_groups()) {
            static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
        }
        {
            Phase phase{"train"};
            auto order = torch::randperm(train->size(), generator, torch::kLong);
            const auto* idx = order.data_ptr<std::int64_t>();
            for (std::int64_t b = 0; b < batches; ++b) {
                std::vector<std::int64_t> items(idx + b * o.batch_size,
                                                idx + (b + 1) * o.batch_size);
                auto [x, y] =
                    make_batch(*train, items, o.seed * 1000 + static_cast<std::uint64_t>(e));
                optimizer.zero_grad();
                auto loss = torch::nn::functional::cross_entropy(model->forward(x.to(device)),
                                                                 y.to(device));
                loss.backward();
                optimizer.step();
                last_loss = loss.item<double>();
                if ((b + 1) % 100 == 0) {
                    fmt::print("Epoch {} batch {}/{}: loss {:.4f}\n", e + 1, b + 1, batches,
                               last_loss);
                    std::fflush(stdout);
                }
            }
        }
        {
            Phase phase{"validation"};
            accuracy = percent(evaluate(model, *valid, o, device, 1));
        }
        fmt::print("Epoch {}: lr {:.4f}, loss {:.4f}, validation accuracy {:.2f} % ({:.0f} s)\n",
                   e + 1, lr, last_loss, accuracy, seconds_since(t0));
        std::fflush(stdout);
        save_model(model, o.model, device); // a long run stopped early keeps its last epoch
    }
    fmt::print("saved {}\n", o.model.string());
    write_metrics(o, {{"workload", "health-vgg"},
                      {"mode", "train"},
                      {"epochs", epochs},
                      {"batches_per_epoch", batches},
                      {"last_loss", last_loss},
                      {"valid_accuracy_percent", accuracy},
                      {"seconds", seconds_since(t0)}});
    return 0;
}

int health_vgg_predict(const Options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    require_model(o, "health-vgg");
    const auto device = setup(o);
    std::optional<ImageSet> test;
    Vgg model;
    {
        Phase phase{"setup"};
        const bool has_test = o.data.empty() || std::filesystem::exists(o.data / "test.csv");
        test = open_split(o, has_test ? "test" : "valid", true);
        torch::load(model, o.model.string());
    }
    model->to(device);
    std::pair<std::int64_t, std::int64_t> result;
    {
        Phase phase{"inference"};
        result = evaluate(model, *test, o, device, o.repeat_data);
    }
    const double accuracy = percent(result);
    fmt::print("Accuracy: {:.2f} % over {} test images x {} ({:.0f} s)\n", accuracy, test->size(),
               o.repeat_data, seconds_since(t0));
    write_metrics(o, {{"workload", "health-vgg"},
                      {"mode", "predict"},
                      {"accuracy_percent", accuracy},
                      {"images", result.second},
                      {"repeat_data", o.repeat_data},
                      {"seconds", seconds_since(t0)}});
    return 0;
}

} // namespace jp::workload
