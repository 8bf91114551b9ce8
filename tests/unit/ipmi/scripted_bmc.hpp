// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A scripted BMC for the SDR walk's tests: a Transport answering the storage
// and sensor commands from a list of records, with refusals and cancellations.
#include "sdr_records.hpp"
#include "sensors/ipmi/transport.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace jp::sensors::ipmi::test {

// A BMC's storage and sensor commands from a list of records: Get SDR pieces
// up to max_piece bytes (larger ones refused with refuse_code), reservations
// checked, scripted cancellations, completion codes and next-record ids.
class ScriptedBmc : public Transport {
public:
    explicit ScriptedBmc(std::vector<Bytes> records) : m_records(std::move(records)) {}

    std::size_t max_piece = 255;
    std::uint8_t refuse_code = 0xCA;
    std::set<int> cancel_at; // Get SDR calls (0-based) answered 0xC5
    bool cancel_always = false;
    std::uint8_t get_sdr_completion = 0x00;
    std::map<std::uint16_t, std::uint16_t> next_of; // overrides the next record id
    bool empty_pieces = false;
    std::map<std::uint8_t, Bytes> readings; // sensor number -> Get Sensor Reading data
    std::vector<Request> calls;
    int reservations = 0;

    Result<Response> call(const Request& r) override {
        calls.push_back(r);
        if (r.netfn == 0x0A && r.cmd == 0x20) {
            return Response{0x00,
                            {0x51, lo(m_records.size()), hi(m_records.size()), 0xFF, 0xFF, 0, 0, 0,
                             0, 0, 0, 0, 0, 0x02}};
        }
        if (r.netfn == 0x0A && r.cmd == 0x22) {
            ++reservations;
            m_reservation = static_cast<std::uint16_t>(0x0100 + reservations);
            return Response{0x00, {lo(m_reservation), hi(m_reservation)}};
        }
        if (r.netfn == 0x0A && r.cmd == 0x23) {
            return get_sdr(r);
        }
        if (r.netfn == 0x04 && r.cmd == 0x2D && r.data.size() == 1 &&
            readings.contains(r.data[0])) {
            return Response{0x00, readings[r.data[0]]};
        }
        return Response{0xC1, {}};
    }
    [[nodiscard]] std::string describe() const override { return "scripted BMC"; }

    [[nodiscard]] std::vector<Request> get_sdr_calls() const {
        std::vector<Request> out;
        for (const auto& c : calls) {
            if (c.netfn == 0x0A && c.cmd == 0x23) {
                out.push_back(c);
            }
        }
        return out;
    }

private:
    Response get_sdr(const Request& r) {
        const int n = m_get_sdr++;
        if (r.data.size() != 6) {
            return {0xC7, {}};
        }
        if (cancel_always || cancel_at.contains(n) ||
            (r.data[0] | (r.data[1] << 8)) != m_reservation) {
            return {0xC5, {}};
        }
        if (get_sdr_completion != 0x00) {
            return {get_sdr_completion, {}};
        }
        const std::size_t count = r.data[5];
        if (count > max_piece) {
            return {refuse_code, {}};
        }
        const auto id = static_cast<std::uint16_t>(r.data[2] | (r.data[3] << 8));
        std::size_t at = 0;
        while (at < m_records.size() && id != 0 && record_id(at) != id) {
            ++at;
        }
        if (at == m_records.size()) {
            return {0xCB, {}};
        }
        const Bytes& rec = m_records[at];
        std::uint16_t next = at + 1 < m_records.size() ? record_id(at + 1) : 0xFFFF;
        if (auto o = next_of.find(record_id(at)); o != next_of.end()) {
            next = o->second;
        }
        Response out{0x00, {lo(next), hi(next)}};
        const std::size_t offset = std::min<std::size_t>(r.data[4], rec.size());
        const std::size_t end = std::min(rec.size(), offset + count);
        if (!empty_pieces) {
            out.data.insert(out.data.end(), rec.begin() + static_cast<std::ptrdiff_t>(offset),
                            rec.begin() + static_cast<std::ptrdiff_t>(end));
        }
        return out;
    }
    [[nodiscard]] std::uint16_t record_id(std::size_t at) const {
        return static_cast<std::uint16_t>(m_records[at][0] | (m_records[at][1] << 8));
    }

    std::vector<Bytes> m_records;
    std::uint16_t m_reservation = 0;
    int m_get_sdr = 0;
};

inline FullRecord watts(std::uint16_t id, std::uint8_t number, std::string name) {
    FullRecord f;
    f.id = id;
    f.number = number;
    f.name = std::move(name);
    return f;
}

inline std::vector<Bytes> mixed_repository() {
    FullRecord temp = watts(2, 0x01, "Inlet Temp");
    temp.base_unit = 1;
    FullRecord cpu = watts(4, 0x21, "CPU Power");
    cpu.entity = 0x03;
    FullRecord satellite = watts(6, 0x30, "PSU Power");
    satellite.owner = 0x2C;            // a satellite controller's: not readable without bridging
    return {other_record(1, 0x12, 11), // the BMC's own locator
            temp.bytes(),
            other_record(3, 0x02, 40), // a compact record
            cpu.bytes(),
            watts(5, 0x20, "Sys Power").bytes(),
            satellite.bytes(),
            other_record(7, 0x11, 16)};
}

} // namespace jp::sensors::ipmi::test
