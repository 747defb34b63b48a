#include "position_image.h"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <memory>

#include "piece_art.h"  // generated from web/src/pieces by CMake

namespace makruk::server {

namespace {

// The drawing of a piece for `side`: the White drawing, recoloured for Black.
std::string piece_art(PieceType pt, Color side) {
  std::string_view art;
  switch (pt) {
    case KING: art = art::k; break;
    case MET: art = art::m; break;
    case KHON: art = art::s; break;
    case KNIGHT: art = art::n; break;
    case ROOK: art = art::r; break;
    case PAWN: art = art::p; break;
    case PROMOTED: art = art::pm; break;
    default: return {};
  }
  std::string svg(art);
  if (side == BLACK)
    for (const auto& [white, black] : art::black_colours)
      for (size_t at = 0; (at = svg.find(white, at)) != std::string::npos; at += black.size())
        svg.replace(at, white.size(), black);
  return svg;
}

// An SVG document placed at (x, y) with the given size: its root element gets
// the position and size (nested <svg> elements scale their viewBox).
std::string placed(std::string svg, double x, double y, double size) {
  const size_t open = svg.find("<svg");
  if (open == std::string::npos) return {};
  svg.insert(open + 4, " x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
                           std::to_string(size) + "\" height=\"" + std::to_string(size) + "\"");
  // Ids inside (the board's gradient) stay unique: there is one board.
  return svg;
}

}  // namespace

std::string position_svg(const Position& pos, std::string_view last_move, const ImageLayout& layout) {
  const double side = std::min(layout.width, layout.height) * 0.94;
  const double x0 = (layout.width - side) / 2, y0 = (layout.height - side) / 2, sq = side / 8;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(layout.width) +
                    "\" height=\"" + std::to_string(layout.height) + "\" viewBox=\"0 0 " +
                    std::to_string(layout.width) + " " + std::to_string(layout.height) + "\">";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#faf4e8\"/>";
  out += "<rect x=\"" + std::to_string(x0 - sq * 0.08) + "\" y=\"" + std::to_string(y0 - sq * 0.08) + "\" width=\"" +
         std::to_string(side + sq * 0.16) + "\" height=\"" + std::to_string(side + sq * 0.16) +
         "\" rx=\"" + std::to_string(sq * 0.1) + "\" fill=\"#5b3a1a\"/>";
  out += placed(std::string(art::board), x0, y0, side);
  auto corner = [&](Square s, double& x, double& y) {
    const int file = layout.black_below ? 7 - file_of(s) : file_of(s);
    const int row = layout.black_below ? rank_of(s) : 7 - rank_of(s);
    x = x0 + file * sq;
    y = y0 + row * sq;
  };
  if (last_move.size() >= 4) {
    for (std::string_view name : {last_move.substr(0, 2), last_move.substr(2, 2)}) {
      if (name[0] < 'a' || name[0] > 'h' || name[1] < '1' || name[1] > '8') continue;
      double x, y;
      corner(make_square(name[0] - 'a', name[1] - '1'), x, y);
      out += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" + std::to_string(sq) +
             "\" height=\"" + std::to_string(sq) + "\" fill=\"#9bc53d\" opacity=\"0.45\"/>";
    }
  }
  for (Square s = 0; s < 64; ++s) {
    const Piece p = pos.piece_on(s);
    if (p == NO_PIECE) continue;
    double x, y;
    corner(s, x, y);
    out += placed(piece_art(type_of(p), color_of(p)), x + sq * 0.04, y + sq * 0.04, sq * 0.92);
  }
  return out + "</svg>";
}

std::string svg_to_png(const std::string& svg, int width, int height, std::string* error) {
  GError* gerror = nullptr;
  std::unique_ptr<RsvgHandle, void (*)(gpointer)> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &gerror), g_object_unref);
  if (!handle) {
    *error = gerror ? gerror->message : "the drawing could not be read";
    if (gerror) g_error_free(gerror);
    return {};
  }
  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height), cairo_surface_destroy);
  std::unique_ptr<cairo_t, void (*)(cairo_t*)> cr(cairo_create(surface.get()), cairo_destroy);
  const RsvgRectangle viewport{0, 0, double(width), double(height)};
  if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &gerror)) {
    *error = gerror ? gerror->message : "the drawing could not be drawn";
    if (gerror) g_error_free(gerror);
    return {};
  }
  std::string png;
  auto write = [](void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  };
  if (cairo_surface_write_to_png_stream(surface.get(), write, &png) != CAIRO_STATUS_SUCCESS) {
    *error = "the picture could not be written as PNG";
    return {};
  }
  return png;
}

}  // namespace makruk::server
