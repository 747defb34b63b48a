// A table's invitation as documents: its link as a QR code (an SVG image,
// libqrencode) and, for a table with a scheduled start, a calendar event
// (iCalendar). The tables say what the invitation is (Hub::invite); these
// draw it.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "server/answer.h"

namespace makruk::server {

// What a table's invitation says, as the tables answered it.
struct Invite {
  std::string code;
  std::string link;     // the invite link, with its key
  std::string variant;  // "makruk" or "ouk"
  int64_t starts_at = 0;  // the scheduled start (ms since the epoch), 0: none
  int64_t asked_at = 0;   // when it was asked (the calendar's stamp)
};
// The invitation, or why not (not found, limited).
using InviteOrRefusal = std::variant<Invite, Answer>;

// The QR code of the invite link (image/svg+xml), or the refusal as it came.
Answer invite_qr(const InviteOrRefusal& got);
// The calendar event of a table with a scheduled start (text/calendar);
// NotFound for one without; or the refusal as it came.
Answer invite_calendar(const InviteOrRefusal& got);

// An SVG drawing of the QR code for `text`; empty on failure.
std::string qr_code_svg(const std::string& text);

}  // namespace makruk::server
