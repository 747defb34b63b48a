// A table's invitation as a QR code and a calendar event.
#include "server/tables/invites.h"

#include <qrencode.h>

#include "server/tables/hub_detail.h"

namespace makruk::server {

std::string qr_code_svg(const std::string& text) {
  QRcode* qr = QRcode_encodeString8bit(text.c_str(), 0, QR_ECLEVEL_M);
  if (!qr) return {};
  const int n = qr->width, border = 4, size = n + 2 * border;
  std::string path;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      if (qr->data[y * n + x] & 1) {
        path += 'M';
        path += std::to_string(x + border);
        path += ',';
        path += std::to_string(y + border);
        path += "h1v1h-1z";
      }
  QRcode_free(qr);
  std::string s = std::to_string(size);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + s + " " + s +
         "\" shape-rendering=\"crispEdges\"><rect width=\"" + s + "\" height=\"" + s +
         "\" fill=\"#fff\"/><path fill=\"#000\" d=\"" + path + "\"/></svg>";
}

namespace {

std::string ics_time(int64_t ms) {
  std::string iso = iso_time(ms);  // 2026-11-30T02:20:39Z
  std::string out;
  for (char c : iso)
    if (c != '-' && c != ':') out += c;
  return out;
}

}  // namespace

Answer invite_qr(const InviteOrRefusal& got) {
  if (const Answer* refusal = std::get_if<Answer>(&got)) return *refusal;
  std::string svg = qr_code_svg(std::get<Invite>(got).link);
  if (svg.empty()) return detail::reply(Outcome::Internal, detail::error_json("internal", Msg::QrFailed));
  return Answer{Outcome::Ok, std::move(svg), "image/svg+xml"};
}

Answer invite_calendar(const InviteOrRefusal& got) {
  if (const Answer* refusal = std::get_if<Answer>(&got)) return *refusal;
  const Invite& i = std::get<Invite>(got);
  if (!i.starts_at) return detail::error_reply(Error{ErrorCode::NotFound, Msg::NoStartTime});
  std::string game = i.variant == "ouk" ? "Ouk Chatrang" : "Makruk";
  std::string ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//makruk//tables//EN\r\nCALSCALE:GREGORIAN\r\n"
                    "METHOD:PUBLISH\r\nBEGIN:VEVENT\r\nUID:" + i.code + "-" + std::to_string(i.starts_at) +
                    "@makruk\r\nDTSTAMP:" + ics_time(i.asked_at) + "\r\nDTSTART:" + ics_time(i.starts_at) +
                    "\r\nDURATION:PT30M\r\nSUMMARY:" + game + " (" + i.code + ")\r\nDESCRIPTION:Table " + i.code +
                    ": " + i.link + "\r\nURL:" + i.link + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
  return Answer{Outcome::Ok, std::move(ics), "text/calendar; charset=utf-8"};
}

}  // namespace makruk::server
