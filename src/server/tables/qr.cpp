#include "server/tables/qr.h"

#include <qrencode.h>

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

}  // namespace makruk::server
