// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Threads spinning on given CPUs until destroyed: on these VMs an idle vCPU's timers do not
// fire (a tick on an idle CPU 1 ran 62 times in 10 s, 2026-11-29), and a job being measured
// keeps its CPUs busy; these stand in for it.
#include <atomic>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <vector>

namespace jp::test {

class BusyCpus {
public:
    explicit BusyCpus(const std::vector<int>& cpus) {
        for (const int cpu : cpus) {
            m_threads.emplace_back([this, cpu] { spin_on(cpu); });
        }
    }
    BusyCpus(const BusyCpus&) = delete;
    BusyCpus& operator=(const BusyCpus&) = delete;
    BusyCpus(BusyCpus&&) = delete;
    BusyCpus& operator=(BusyCpus&&) = delete;
    ~BusyCpus() {
        m_stop = true;
        m_threads.clear(); // joined
    }

private:
    void spin_on(int cpu) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(static_cast<std::size_t>(cpu), &set);
        (void)::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
        while (!m_stop.load(std::memory_order_relaxed)) {
        }
    }

    std::atomic<bool> m_stop{false};
    std::vector<std::jthread> m_threads;
};

} // namespace jp::test
