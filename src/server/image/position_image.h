// Pictures of a position, for link previews (Open Graph) and for sharing a game
// as an image (LINE and the like): the board and the pieces as the web client
// draws them (the drawings in web/src/pieces, built into the binary), drawn to
// PNG by librsvg.
#pragma once

#include <string>
#include <string_view>

#include "core/position.h"

namespace makruk::server {

struct ImageLayout {
  int width = 720, height = 720;  // the picture; the board is the largest square that fits, centred
  bool black_below = false;        // the board seen from Black's side
};

// The position as an SVG document: the board, the pieces, and the squares of
// `last_move` ("e3e4", empty for none) marked.
std::string position_svg(const Position& pos, std::string_view last_move, const ImageLayout& layout);

// An SVG document drawn to PNG bytes; empty (and *error) when it cannot be drawn.
std::string svg_to_png(const std::string& svg, int width, int height, std::string* error);

}  // namespace makruk::server
