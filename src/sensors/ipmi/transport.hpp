// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One IPMI request and its reply, whatever carries them: the kernel's IPMI
// device (in-band) or an IPMI 2.0 RMCP+ session to the BMC (out-of-band).
#include "core/error.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace jp::sensors::ipmi {

struct Request {
    std::uint8_t netfn = 0; // request NetFn (even): 0x2C DCMI, 0x3A Lenovo OEM, 0x0A storage
    std::uint8_t cmd = 0;
    std::vector<std::uint8_t> data;
    std::uint8_t lun = 0;
};

struct Response {
    std::uint8_t completion = 0;    // 0x00 ok; anything else is the BMC's completion code
    std::vector<std::uint8_t> data; // the bytes after the completion code
};

class Transport {
public:
    Transport() = default;
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;
    Transport(Transport&&) = delete;
    Transport& operator=(Transport&&) = delete;
    virtual ~Transport() = default;

    // Sends one request and waits for its reply (with the transport's timeout and
    // retries). An error is a transport failure (timeout, refused session, garbled
    // frame); a reply with a non-zero completion code is a Response, not an error.
    [[nodiscard]] virtual Result<Response> call(const Request& request) = 0;
    // "in-band /dev/ipmi0", "out-of-band 10.0.0.5:623 (RMCP+, cipher suite 17)"
    [[nodiscard]] virtual std::string describe() const = 0;
};

} // namespace jp::sensors::ipmi
