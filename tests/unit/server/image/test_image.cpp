// Pictures of positions: the PNG is read back, and every square is looked at,
// so a piece drawn on the wrong square, in the wrong colour or not at all fails.
#include <cairo.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "server/image/position_image.h"

using namespace makruk;
using namespace makruk::server;

namespace {

struct Picture {
  int width = 0, height = 0;
  std::vector<uint32_t> pixels;  // 0x00RRGGBB
};

Picture read_png(const std::string& png) {
  struct Reader {
    const std::string& data;
    size_t at = 0;
  } reader{png};
  auto read = [](void* closure, unsigned char* out, unsigned int length) {
    auto* r = static_cast<Reader*>(closure);
    if (r->at + length > r->data.size()) return CAIRO_STATUS_READ_ERROR;
    std::memcpy(out, r->data.data() + r->at, length);
    r->at += length;
    return CAIRO_STATUS_SUCCESS;
  };
  cairo_surface_t* s = cairo_image_surface_create_from_png_stream(read, &reader);
  Picture p;
  if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
    p.width = cairo_image_surface_get_width(s);
    p.height = cairo_image_surface_get_height(s);
    const int stride = cairo_image_surface_get_stride(s);
    const unsigned char* data = cairo_image_surface_get_data(s);
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) p.pixels.push_back(reinterpret_cast<const uint32_t*>(data + y * stride)[x] & 0xffffff);
  }
  cairo_surface_destroy(s);
  return p;
}

bool near(uint32_t c, uint32_t want, int tolerance = 6) {
  for (int shift : {0, 8, 16})
    if (std::abs(int((c >> shift) & 255) - int((want >> shift) & 255)) > tolerance) return false;
  return true;
}

// What a square shows: 'W' a White piece, 'B' a Black piece, '.' nothing, by
// the pieces' fill colours (web/src/pieces and black.json).
char square_shows(const Picture& p, const ImageLayout& layout, int file, int rank, double* green = nullptr) {
  const double side = std::min(layout.width, layout.height) * 0.94, sq = side / 8;
  const double x0 = (layout.width - side) / 2, y0 = (layout.height - side) / 2;
  const int col = layout.black_below ? 7 - file : file, row = layout.black_below ? rank : 7 - rank;
  int white = 0, black = 0, greenish = 0, all = 0;
  for (int y = int(y0 + row * sq + 4); y < int(y0 + (row + 1) * sq - 4); ++y)
    for (int x = int(x0 + col * sq + 4); x < int(x0 + (col + 1) * sq - 4); ++x) {
      const uint32_t c = p.pixels[size_t(y) * p.width + x];
      white += near(c, 0xfbf1dc) || near(c, 0xe3cfa6);
      black += near(c, 0x3b2a22) || near(c, 0x241812);
      // The wood is far redder than green (about 40 levels); the marked squares are not.
      greenish += int((c >> 8) & 255) > int((c >> 16) & 255) - 15;
      ++all;
    }
  if (green) *green = double(greenish) / all;
  if (white > all / 25 && white > 3 * black) return 'W';
  if (black > all / 25 && black > 3 * white) return 'B';
  return white + black < all / 100 ? '.' : '?';
}

// The picture's squares as FEN-like rows, rank 8 first: "BBBBBBBB/......../…".
std::string board_of(const Picture& p, const ImageLayout& layout) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    for (int file = 0; file < 8; ++file) out += square_shows(p, layout, file, rank);
    if (rank) out += '/';
  }
  return out;
}

std::string expected(const Position& pos) {
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    for (int file = 0; file < 8; ++file) {
      const Piece pc = pos.piece_on(make_square(file, rank));
      out += pc == NO_PIECE ? '.' : color_of(pc) == WHITE ? 'W' : 'B';
    }
    if (rank) out += '/';
  }
  return out;
}

Position position(const std::string& fen, Variant v = Variant::Makruk) {
  Position pos;
  std::string error;
  EXPECT_TRUE(pos.set(fen, v, Counting::Automatic, &error)) << error;
  return pos;
}

Picture draw(const Position& pos, std::string_view last, const ImageLayout& layout) {
  std::string error;
  const std::string png = svg_to_png(position_svg(pos, last, layout), layout.width, layout.height, &error);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  return read_png(png);
}

}  // namespace

TEST(Image, StartPositionEverySquare) {
  const Position pos = position(std::string(Position::MAKRUK_START));
  const ImageLayout square;
  const Picture p = draw(pos, "", square);
  ASSERT_EQ(p.width, 720);
  ASSERT_EQ(p.height, 720);
  EXPECT_EQ(board_of(p, square), expected(pos));
}

TEST(Image, PreviewCardFromBlacksSideWithPromotedPawnsAndTheLastMove) {
  // Both sides have promoted pawns; Black's last move d4d3.
  const Position pos = position("4k3/8/2M~2p2/8/8/3m~4/4K3/8 w - - 0 40");
  ImageLayout card{1200, 630, true};
  const Picture p = draw(pos, "d4d3", card);
  ASSERT_EQ(p.width, 1200);
  ASSERT_EQ(p.height, 630);
  EXPECT_EQ(board_of(p, card), expected(pos));
  double green_from = 0, green_other = 0;
  square_shows(p, card, 3, 3, &green_from);   // d4: empty, marked
  square_shows(p, card, 3, 4, &green_other);  // d5: empty, not marked
  EXPECT_GT(green_from, 0.5);
  EXPECT_LT(green_other, 0.05);
  // Around the board: the page's colour, not the board's.
  EXPECT_TRUE(near(p.pixels[5 * 1200 + 5], 0xfaf4e8, 2));
}

TEST(Image, OukPositionAndRandomPlacements) {
  const Position ouk = position(std::string(Position::OUK_START), Variant::Ouk);
  const ImageLayout square{360, 360, false};
  EXPECT_EQ(board_of(draw(ouk, "e3e4", square), square), expected(ouk));
  // Scattered pieces of every kind, from positions along a fixed game.
  const Position mid = position("r1s1k1nr/3m4/p1pnpsp1/1p1p3p/P2P1P2/1PP1P1PP/4N3/R1SMKSNR b - - 0 12");
  EXPECT_EQ(board_of(draw(mid, "", square), square), expected(mid));
}

TEST(Image, BadDrawingIsAnErrorNotACrash) {
  std::string error;
  EXPECT_TRUE(svg_to_png("<svg><path d=", 100, 100, &error).empty());
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_TRUE(svg_to_png("not a drawing at all", 100, 100, &error).empty());
  EXPECT_FALSE(error.empty());
}
