#include "sensors/powercap/powercap.hpp"

#include "core/clock.hpp"
#include "sensors/powercap/zone.hpp"
#include "sys/file.hpp"

#include <fmt/format.h>

namespace jp::sensors::powercap {
namespace {

constexpr std::int64_t k_presence_check_ns = 1'000'000'000;

// Reads each zone's energy_uj from an fd kept open; µJ become J here.
class PowercapSensor final : public Sensor {
public:
    PowercapSensor(std::vector<Channel> channels, std::vector<sys::PolledFile> files)
        : m_channels(std::move(channels)), m_files(std::move(files)),
          m_gone(m_channels.size(), false) {}

    std::string_view backend() const noexcept override { return "powercap"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }

    void read(std::span<Value> out) noexcept override {
        const auto now = mono_ns();
        const bool check = now - m_last_check >= k_presence_check_ns;
        if (check) {
            m_last_check = now;
        }
        for (std::size_t i = 0; i < m_files.size(); ++i) {
            out[i] = read_one(i, check);
        }
    }

private:
    Value read_one(std::size_t i, bool check_presence) noexcept {
        if (m_gone[i] || (check_presence && !m_files[i].still_present())) {
            m_gone[i] = true;
            return {0, ReadStatus::gone};
        }
        auto uj = m_files[i].read_u64();
        if (uj) {
            return {static_cast<double>(*uj) * 1e-6, ReadStatus::ok};
        }
        switch (uj.error()) {
        case ENODEV:
        case ENOENT:
        case ENXIO:
            m_gone[i] = true;
            return {0, ReadStatus::gone};
        case EACCES:
        case EPERM:
            return {0, ReadStatus::fatal};
        default:
            return {0, ReadStatus::retry}; // EAGAIN, EIO, malformed or torn content
        }
    }

    std::vector<Channel> m_channels;
    std::vector<sys::PolledFile> m_files;
    std::vector<bool> m_gone;
    std::int64_t m_last_check = 0;
};

std::string access_hint(const Host& host) {
    if (host.is_root) {
        return "the file is not readable even by root: check the powercap driver";
    }
    return "energy_uj is root-only since Linux 5.10 (CVE-2020-8694). Fix one of: run jouleprofd "
           "(the node daemon) as root; a udev rule `SUBSYSTEM==\"powercap\", ACTION==\"add\", "
           "RUN+=\"/bin/chmod 0444 %S%p/energy_uj\"`; or allow perf RAPL with "
           "`sysctl kernel.perf_event_paranoid=0` or CAP_PERFMON";
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    const auto base = sys::under_root(host.sysfs_root, "/sys/class/powercap");
    auto zones = scan_zones(base, out.notes);
    if (zones.empty()) {
        out.notes.push_back(fmt::format("powercap: no RAPL zones under {}", base.string()));
        return out;
    }
    std::vector<Channel> channels;
    std::vector<sys::PolledFile> files;
    for (auto& zone : zones) {
        auto file = sys::PolledFile::open(zone.dir / "energy_uj");
        if (!file) {
            out.unreadable.push_back(Finding{
                "powercap", fmt::format("zone {} ({})", zone.id, zone.name), file.error().message(),
                file.error().kind == ErrorKind::permission ? access_hint(host) : std::string{}});
            continue;
        }
        channels.push_back(std::move(zone.channel));
        files.push_back(std::move(*file));
    }
    mark_duplicate_dies(channels, files);
    if (!channels.empty()) {
        out.sensors.push_back(
            std::make_unique<PowercapSensor>(std::move(channels), std::move(files)));
    }
    return out;
}

} // namespace jp::sensors::powercap
