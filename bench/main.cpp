// SPDX-License-Identifier: BSL-1.0
// Benchmark driver: runs the registered benchmarks and then prints, for every group, the ratio
// of each baseline to Candor measured in this same run (the machines are shared and noisy, so
// only same-run ratios mean anything). Naming: BM_<Group>_Candor is Candor's side; any other
// BM_<Group>_<Name> in the same group is a baseline.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

class ratio_reporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const auto& r : runs) {
            if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
            times_[r.benchmark_name()] = r.GetAdjustedCPUTime();
        }
    }

    void print_ratios() const {
        std::printf("\nRatios (baseline time / Candor time; > 1 means Candor is faster):\n");
        for (const auto& [name, t] : times_) {
            const auto pos = name.rfind("_Candor");
            if (pos == std::string::npos) continue;
            const std::string group = name.substr(0, pos);
            const std::string suffix = name.substr(pos + 7);  // e.g. "/1000"
            for (const auto& [other, u] : times_) {
                if (other == name || other.rfind(group + "_", 0) != 0) continue;
                if (other.size() < suffix.size() ||
                    other.compare(other.size() - suffix.size(), suffix.size(), suffix) != 0)
                    continue;
                if (other.find("_Candor") != std::string::npos) continue;
                std::printf("  %-45s %-40s %8.2fx\n", group.c_str(), other.substr(group.size() + 1).c_str(), u / t);
            }
        }
    }

private:
    std::map<std::string, double> times_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    ratio_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    benchmark::Shutdown();
    return 0;
}
