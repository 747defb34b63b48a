// QR codes as SVG images (libqrencode), for invite links.
#pragma once

#include <string>

namespace makruk::server {

// An SVG drawing of the QR code for `text`; empty on failure.
std::string qr_code_svg(const std::string& text);

}  // namespace makruk::server
