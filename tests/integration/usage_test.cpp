// SPDX-License-Identifier: BSD-3-Clause
// Command-line mistakes through the real binary: one line naming what was
// wrong and how to fix it, exit status 2, and nothing run or written.
#include "shell.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::test {
namespace {

Outcome jouleprof(const std::string& args) {
    return sh(fmt::format("{} {} 2>&1", JP_BINARY, args));
}

TEST(Usage, AMistypedCommandIsNamedWithTheNearestOne) {
    const auto r = jouleprof("rnu -- true");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.out.find("unknown command 'rnu' (did you mean 'run'?)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("sensors"), std::string::npos) << "the commands are listed: " << r.out;
    // Behind a global option and its value too; nothing near: no guess.
    const auto far = jouleprof("-c /nonexistent.toml xyzzyq");
    EXPECT_EQ(far.exit_code, 2);
    EXPECT_NE(far.out.find("unknown command 'xyzzyq'; the commands:"), std::string::npos)
        << far.out;
}

TEST(Usage, AnUnknownOptionBeforeTheCommandIsNamed) {
    const auto r = jouleprof("--verison");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.out.find("unknown option '--verison' (did you mean '--version'?)"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(jouleprof("--bogus run -- true").out.find("A subcommand is required"),
              std::string::npos);
}

TEST(Usage, AMissingArgumentIsNamedWithWhatItIs) {
    const struct {
        const char* args;
        const char* says;
    } cases[] = {
        {"report", "report: 'traces' is missing: trace files, TRACE:LABEL for one label of a "
                   "trace, or directories of a job's node traces (one result per step) "
                   "(jouleprof report --help)"},
        {"run", "run: 'command' is missing: the command and its arguments (after --) (jouleprof "
                "run --help)"},
        {"sweep -- true", "sweep: --param is missing: NAME=V1,V2,... (jouleprof sweep --help)"},
        {"sweep", "sweep: --param and 'command' are missing (jouleprof sweep --help)"},
        {"export", "export: 'trace' and --format are missing (jouleprof export --help)"},
        {"report --json-file", "report: --json-file needs a value (FILE) (jouleprof report "
                               "--help)"},
        {"-c", "--config needs a value (TEXT) (jouleprof --help)"},
        {"study report", "study report: 'results' is missing: results files (jouleprof study "
                         "report --help)"},
        {"", "give a command: run, sensors, "},
        {"-v", "give a command: run, sensors, "},
    };
    for (const auto& c : cases) {
        const auto r = jouleprof(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args;
        EXPECT_EQ(r.out.find("jouleprof: error: " + std::string{c.says}), 0U)
            << c.args << ": " << r.out;
        EXPECT_EQ(r.out.find("is required"), std::string::npos) << c.args << ": " << r.out;
        EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << c.args << ": one line: " << r.out;
    }
}

TEST(Usage, AMistypedOptionOrAValueThatIsNoNumberIsSaidInTheCommandsTerms) {
    const auto dir =
        std::filesystem::temp_directory_path() / fmt::format("jp-usage-opt-{}", ::getpid());
    std::filesystem::create_directories(dir);
    const auto trace = (dir / "t.jptrace").string();
    ASSERT_EQ(sh(fmt::format("{} -q run --no-live -o {} -- true", JP_BINARY, trace)).exit_code, 0);
    const struct {
        std::string args;
        std::string says;
    } cases[] = {
        {"run --repat 3 -- true", "run: unknown option '--repat' (did you mean '--repeat'?) "
                                  "(jouleprof run --help)"},
        {"compare --basline x a b", "compare: unknown option '--basline' (did you mean "
                                    "'--baseline'?)"},
        {"run --zzzzzz -- true", "run: unknown option '--zzzzzz' (jouleprof run --help)"},
        // A misspelt option is named even where CLI11 failed first on what followed it.
        {"sweep --parm n=1 -- true", "sweep: unknown option '--parm' (did you mean '--param'?)"},
        {"export --fromat csv " + trace, "export: unknown option '--fromat' (did you mean "
                                         "'--format'?)"},
        {"report " + trace + " --thresold 5", "report: unknown option '--thresold' (did you "
                                              "mean '--threshold'?)"},
        // No guess for one letter (every one is an edit from -h); a cluster named whole.
        {"run -x -- true", "run: unknown option '-x' (jouleprof run --help)"},
        {"run -qx -- true", "run: unknown option '-qx' (jouleprof run --help)"},
        {"run -qv -- true", "-q is a global option: give it before the command"},
        {"--quite report " + trace, "unknown option '--quite' (did you mean '--quiet'?)"},
        {"-r 3 run -- true", "-r is an option of run: give it after the command"},
        {"run -r abc -- true", "run: --repeat: cannot read 'abc' as a whole number (jouleprof "
                               "run --help)"},
        {"run -r \"$(printf '1\\n2')\" -- true",
         "run: --repeat: cannot read '1\\n2' as a whole number"},
        {"mark point x --strict=maybe", "mark: --strict takes no value, got 'maybe'"},
        // An option's value is its value, whatever it looks like.
        {"report " + trace + " --price -nan", "--price: expected a finite number, got '-nan'"},
        {"run -l -x", "run: 'command' is missing"},
        {"run -c foo -- true", "-c is a global option: give it before the command (jouleprof "
                               "-c foo run ...)"},
        {"run --json-file -- true", "--json-file: '--' is no file name"},
    };
    for (const auto& c : cases) {
        const auto r = sh(fmt::format("cd {} && {} {} 2>&1", dir.string(), JP_BINARY, c.args));
        EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.out;
        EXPECT_EQ(r.out.find("jouleprof: error: " + c.says), 0U) << c.args << ": " << r.out;
        EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << c.args << ": one line: " << r.out;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "--")) << "no JSON file named --";
    // After "--" an option is the job's own, as it always was.
    const auto job = sh(fmt::format("cd {} && {} run --no-live -o u.jptrace -- true --repat -x "
                                    "2>&1",
                                    dir.string(), JP_BINARY));
    EXPECT_EQ(job.exit_code, 0) << job.out;
    EXPECT_NE(job.out.find("(1 run; true --repat -x)"), std::string::npos) << job.out;
    std::filesystem::remove_all(dir);
}

TEST(Usage, AGlobalOptionAfterTheCommandIsExplained) {
    for (const char* option : {"-v", "--quiet", "--sysfs-root=/"}) {
        const auto r = jouleprof(fmt::format("run {} -- true", option));
        EXPECT_EQ(r.exit_code, 2) << option;
        const std::string name = std::string{option}.substr(0, std::string{option}.find('='));
        EXPECT_NE(r.out.find(name + " is a global option: give it before the command (jouleprof " +
                             option + " run ...)"),
                  std::string::npos)
            << r.out;
    }
    // After "--" it is the job's own argument, as it always was.
    const auto dir =
        std::filesystem::temp_directory_path() / fmt::format("jp-usage-v-{}", ::getpid());
    std::filesystem::create_directories(dir);
    const auto job = sh(fmt::format("cd {} && {} -q run --no-live -o t.jptrace -- true -v 2>&1",
                                    dir.string(), JP_BINARY));
    EXPECT_EQ(job.exit_code, 0) << job.out;
    std::filesystem::remove_all(dir);
}

TEST(Usage, AnEmptyFileNameIsRefusedNotTakenAsTheDefault) {
    const auto dir =
        std::filesystem::temp_directory_path() / fmt::format("jp-usage-{}", ::getpid());
    std::filesystem::create_directories(dir);
    std::ofstream{dir / "x.jptrace"}; // an input for report and export (never read: refused first)
    for (const char* args : {"run -o '' -- true", "record -o ''", "sweep -p n=1 -o '' -- true",
                             "report --html '' x.jptrace", "export -f csv -o '' x.jptrace"}) {
        const auto r = sh(fmt::format("cd {} && {} {} 2>&1", dir.string(), JP_BINARY, args));
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
        EXPECT_NE(r.out.find("an empty file name"), std::string::npos) << args << ": " << r.out;
    }
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator{dir}) {
        EXPECT_EQ(entry.path().filename(), "x.jptrace") << "nothing was written";
        ++files;
    }
    EXPECT_EQ(files, 1U);
    std::filesystem::remove_all(dir);
}

TEST(Usage, HelpShowsNoParserArtefacts) {
    for (const char* command : {"run", "study", "sweep", "report", "merge"}) {
        const auto r = jouleprof(fmt::format("{} --help", command));
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_EQ(r.out.find("{false}"), std::string::npos) << command << ": " << r.out;
    }
}

} // namespace
} // namespace jp::test
