// SPDX-License-Identifier: BSD-3-Clause
#include "../temp_dir.hpp"
#include "models.hpp"
#include "run_command.hpp"

#include <ctime>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace jp::workload {
namespace {

TEST(Models, TheLstmHasTheStudys9841Parameters) {
    LoadForecaster model;
    EXPECT_EQ(parameter_count(*model), 9841);
    const auto out = model->forward(torch::zeros({3, 168, 1}));
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{3, 168, 1}));
}

TEST(Models, TheVggHasAbout20Point04MillionParametersAndTwoOutputs) {
    Vgg model;
    const auto n = parameter_count(*model);
    // Σ conv (k²·in·out + out) + BN (2·out) over the 16 layers, + Linear(512, 2): by hand.
    EXPECT_EQ(n, 20'035'266);
    EXPECT_NEAR(static_cast<double>(n) / 1e6, 20.04, 0.005); // the study's "20.04 M"
    torch::NoGradGuard no_grad;
    model->eval();
    const auto out = model->forward(torch::zeros({1, 1, 224, 224}));
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{1, 2}));
}

using test::Output;

Output run(const std::string& args) {
    return test::run_command(std::string{JP_WORKLOAD} + " " + args + " 2>&1");
}

nlohmann::json read_json(const std::filesystem::path& p) {
    std::ifstream in{p};
    return nlohmann::json::parse(in);
}

TEST(Workload, EnergyLstmTrainsThenForecastsWithAMape) {
    test::TempDir dir;
    const auto model = (dir.path() / "m.pt").string();
    const auto metrics = dir.path() / "metrics.json";
    auto train = run("energy-lstm train --synthetic-count 1 --epochs 2 --limit-batches 3 "
                     "--threads 1 --model " +
                     model + " --metrics " + metrics.string());
    ASSERT_EQ(train.code, 0) << train.text;
    EXPECT_NE(train.text.find("Epoch 2: Training Loss = "), std::string::npos) << train.text;
    EXPECT_NE(train.text.find("25968 training windows (3 batches"), std::string::npos)
        << train.text;
    EXPECT_EQ(read_json(metrics)["batches_per_epoch"], 3);
    // The whole test year has 8,424 windows; --limit-batches keeps the first 1,024 of it.
    auto predict = run("energy-lstm predict --synthetic-count 1 --repeat-data 2 --threads 1 "
                       "--limit-batches 1 --model " +
                       model + " --metrics " + metrics.string());
    ASSERT_EQ(predict.code, 0) << predict.text;
    const auto m = read_json(metrics);
    EXPECT_EQ(m["windows"], 1024);
    EXPECT_NE(predict.text.find("over 1024 forecast windows x 2"), std::string::npos)
        << predict.text;
    const double mape = m["mape_percent"];
    EXPECT_GT(mape, 0.0);
    EXPECT_LT(mape, 100.0); // a model trained for 6 batches is poor, not absurd
    EXPECT_NE(predict.text.find("MAPE: "), std::string::npos);
}

TEST(Workload, HealthVggTrainsAndPredictsOnACovidxFolder) {
    test::TempDir dir;
    const auto data = dir.path() / "data";
    ASSERT_EQ(run("health-vgg synth --count 4 --out " + data.string()).code, 0);
    const auto model = (dir.path() / "vgg.pt").string();
    auto train = run("health-vgg train --data " + data.string() +
                     " --epochs 1 --batch-size 2 --limit-batches 1 --threads 2 --model " + model);
    ASSERT_EQ(train.code, 0) << train.text;
    EXPECT_NE(train.text.find("4 training and 2 validation images"), std::string::npos)
        << train.text;
    const auto metrics = dir.path() / "m.json";
    auto predict = run("health-vgg predict --data " + data.string() +
                       " --batch-size 2 --repeat-data 2 --threads 2 --model " + model +
                       " --metrics " + metrics.string());
    ASSERT_EQ(predict.code, 0) << predict.text;
    const auto m = read_json(metrics);
    EXPECT_EQ(m["images"], 4); // 2 test images, each twice
    EXPECT_GE(m["accuracy_percent"].get<double>(), 0.0);
    EXPECT_LE(m["accuracy_percent"].get<double>(), 100.0);
}

TEST(Workload, BadInputIsOneLineAndNonZero) {
    test::TempDir dir;
    auto no_model =
        run("energy-lstm predict --synthetic-count 1 --model " + (dir.path() / "none.pt").string());
    EXPECT_EQ(no_model.code, 1);
    EXPECT_NE(no_model.text.find("no trained model at"), std::string::npos) << no_model.text;
    EXPECT_EQ(std::count(no_model.text.begin(), no_model.text.end(), '\n'), 1) << no_model.text;
    dir.write("bad/xx.csv", "start,end,load\n2015-01-01 00:00:00,x,abc\n");
    auto bad = run("energy-lstm train --data " + (dir.path() / "bad").string());
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.text.find("xx.csv:2: load 'abc' is not a number"), std::string::npos) << bad.text;
    auto cuda = run("energy-lstm train --device cuda --synthetic-count 1");
    EXPECT_NE(cuda.code, 0);
    EXPECT_NE(cuda.text.find("--device cuda"), std::string::npos) << cuda.text;
    EXPECT_NE(run("health-vgg train --epochs 0").code, 0);
    EXPECT_NE(run("nonsense").code, 0);
}

TEST(Workload, AConstantLoadTrainsButHasNoMape) {
    test::TempDir dir;
    std::string csv = "start,end,load\n";
    char row[80];
    for (int day = 0; day < 5 * 366; ++day) { // 2015-01-01 on, past the end of 2019
        for (int h = 0; h < 24; ++h) {
            const std::time_t t = 1420070400 + (day * 24 + h) * 3600;
            std::tm tm{};
            ::gmtime_r(&t, &tm);
            std::strftime(row, sizeof row, "%Y-%m-%d %H:%M:%S+00:00,x,500\n", &tm);
            csv += row;
        }
    }
    const auto data = dir.write("load/flat.csv", csv).parent_path().string();
    const auto model = (dir.path() / "m.pt").string();
    auto train = run("energy-lstm train --epochs 1 --limit-batches 1 --threads 1 --data " + data +
                     " --model " + model);
    ASSERT_EQ(train.code, 0) << train.text;
    auto predict = run("energy-lstm predict --threads 1 --data " + data + " --model " + model);
    EXPECT_EQ(predict.code, 1);
    EXPECT_NE(predict.text.find("flat: the test inputs are constant"), std::string::npos)
        << predict.text;
}

} // namespace
} // namespace jp::workload
