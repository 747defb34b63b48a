// Move notations (docs/rules.md §7): coordinate strings, SAN both ways, Thai SAN,
// and round trips over positions reached by random playouts.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "core/movegen.h"
#include "core/notation.h"
#include "helpers.h"

using namespace makruk;

using makruk::testing_helpers::from_fen;
using makruk::testing_helpers::sq;

namespace {

// Plays coordinate moves, failing the test on the first one refused.
void play(Position& pos, std::initializer_list<const char*> moves) {
  for (const char* text : moves) {
    std::string error;
    Move m = parse_move(pos, text, &error);
    ASSERT_FALSE(m.is_none()) << text << ": " << error;
    pos.do_move(m);
  }
}

// The legal move from `from` to `to` (a null move when there is none).
Move legal(const Position& pos, const char* from, const char* to) {
  MoveList list;
  generate_legal(pos, list);
  for (Move m : list)
    if (m.from() == sq(from) && m.to() == sq(to)) return m;
  ADD_FAILURE() << "no legal move " << from << to << " in " << pos.fen();
  return Move();
}

std::string san(const Position& pos, const char* from, const char* to) {
  return move_to_san(pos, legal(pos, from, to));
}

// ---------------------------------------------------------------------------
// Coordinate moves

TEST(MoveString, WritesFromAndTo) {
  EXPECT_EQ(move_to_string(Move(sq("e3"), sq("e4"))), "e3e4");
  EXPECT_EQ(move_to_string(Move(sq("a1"), sq("h8"))), "a1h8");
  EXPECT_EQ(move_to_string(Move(sq("d5"), sq("d6"), Move::PROMOTION)), "d5d6m");
  EXPECT_EQ(square_name(0), "a1");
  EXPECT_EQ(square_name(63), "h8");
}

TEST(MoveString, ParsesLegalMoves) {
  Position pos;
  Move m = parse_move(pos, "e3e4");
  EXPECT_EQ(m, Move(sq("e3"), sq("e4")));
  EXPECT_FALSE(m.is_promotion());
  EXPECT_EQ(parse_move(pos, "b1d2"), Move(sq("b1"), sq("d2")));
}

TEST(MoveString, PromotionWithAndWithoutM) {
  Position pos = from_fen("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1");
  std::string error;
  Move withM = parse_move(pos, "d5d6m", &error);
  ASSERT_FALSE(withM.is_none()) << error;
  EXPECT_TRUE(withM.is_promotion());
  Move plain = parse_move(pos, "d5d6", &error);
  ASSERT_FALSE(plain.is_none()) << error;
  EXPECT_TRUE(plain.is_promotion());
  EXPECT_EQ(withM, plain);
  EXPECT_EQ(move_to_string(plain), "d5d6m");

  // Black promotes on its sixth rank, rank 3.
  Position black = from_fen("4k3/8/8/8/4p3/8/8/K7 b - - 0 1");
  Move b = parse_move(black, "e4e3");
  ASSERT_FALSE(b.is_none());
  EXPECT_TRUE(b.is_promotion());
  EXPECT_EQ(parse_move(black, "e4e3m"), b);
}

TEST(MoveString, MOnNonPromotionRefused) {
  Position pos;
  std::string error;
  EXPECT_TRUE(parse_move(pos, "e3e4m", &error).is_none());
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_TRUE(parse_move(pos, "b1d2m", &error).is_none());
  EXPECT_FALSE(error.empty());
  // A pawn that does not reach its sixth rank does not promote.
  Position mid = from_fen("4k3/8/8/8/3P4/8/8/4K3 w - - 0 1");
  error.clear();
  EXPECT_TRUE(parse_move(mid, "d4d5m", &error).is_none());
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(parse_move(mid, "d4d5").is_none());
}

TEST(MoveString, MalformedRefused) {
  Position pos;
  for (const char* text : {"", "e", "e3", "e3e", "e3e4e5", "i3e4", "e9e4", "e0e4", "E3E4", "e3-e4",
                           "e3e4q", "e3e4M", "e3e4 ", " e3e4", "3e4e", "e3e4mm", "\xff\xfe\x01\x02",
                           "e3\0e4", "0000"}) {
    std::string error;
    EXPECT_TRUE(parse_move(pos, text, &error).is_none()) << "'" << text << "'";
    EXPECT_FALSE(error.empty()) << "'" << text << "'";
  }
  std::string error;
  ASSERT_TRUE(parse_move(pos, "e3e4x", &error).is_none());
  EXPECT_NE(error.find("e3e4x"), std::string::npos) << error;  // the error quotes the input
  // Without an error pointer, a refusal is still a null move.
  EXPECT_TRUE(parse_move(pos, "zz").is_none());
}

TEST(MoveString, IllegalRefused) {
  Position pos;
  for (const char* text : {"e3e5", "e4e5", "d1d3", "a1a4", "e6e5", "b1c3", "e1e3"}) {
    std::string error;
    EXPECT_TRUE(parse_move(pos, text, &error).is_none()) << text;
    EXPECT_NE(error.find("illegal"), std::string::npos) << text << ": " << error;
  }
  // The Ouk neang jump is legal only in Ouk, and only to an empty square.
  Position ouk = from_fen(Position::OUK_START, Variant::Ouk);
  EXPECT_TRUE(parse_move(ouk, "e1e3").is_none());  // e3 is occupied by a pawn
  EXPECT_FALSE(parse_move(ouk, "d1b2").is_none());
  Position mak;
  EXPECT_TRUE(parse_move(mak, "d1b2").is_none());
}

// ---------------------------------------------------------------------------
// SAN

TEST(San, StartPositionPieces) {
  Position pos;
  EXPECT_EQ(san(pos, "e3", "e4"), "e4");
  EXPECT_EQ(san(pos, "b1", "d2"), "Nd2");
  EXPECT_EQ(san(pos, "c1", "c2"), "Sc2");
  EXPECT_EQ(san(pos, "c1", "b2"), "Sb2");
  EXPECT_EQ(san(pos, "d1", "c2"), "Kc2");
  EXPECT_EQ(san(pos, "e1", "f2"), "Mf2");
  EXPECT_EQ(san(pos, "a1", "a2"), "Ra2");
  EXPECT_EQ(parse_san(pos, "e4"), Move(sq("e3"), sq("e4")));
  EXPECT_EQ(parse_san(pos, "Nd2"), Move(sq("b1"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "Sc2"), Move(sq("c1"), sq("c2")));
  EXPECT_EQ(parse_san(pos, "Kc2"), Move(sq("d1"), sq("c2")));
  EXPECT_EQ(parse_san(pos, "Mf2"), Move(sq("e1"), sq("f2")));
  EXPECT_EQ(parse_san(pos, "Ra2"), Move(sq("a1"), sq("a2")));
}

TEST(San, Captures) {
  Position pos;
  play(pos, {"e3e4", "d6d5"});
  EXPECT_EQ(san(pos, "e4", "d5"), "exd5");
  EXPECT_EQ(parse_san(pos, "exd5"), Move(sq("e4"), sq("d5")));
  // A capture needs its 'x' and a pawn capture its file.
  EXPECT_TRUE(parse_san(pos, "d5").is_none());
  EXPECT_TRUE(parse_san(pos, "ed5").is_none());
  Position knight = from_fen("4k3/8/8/8/8/2n5/8/1N2K3 w - - 0 1");
  EXPECT_EQ(san(knight, "b1", "c3"), "Nxc3");
  EXPECT_EQ(parse_san(knight, "Nxc3"), Move(sq("b1"), sq("c3")));
  EXPECT_TRUE(parse_san(knight, "Nc3").is_none());  // it is a capture
  EXPECT_TRUE(parse_san(knight, "Nxd2").is_none());  // it is not
}

TEST(San, Promotion) {
  Position pos = from_fen("4k3/8/8/3P4/8/8/8/K7 w - - 0 1");
  Move m = legal(pos, "d5", "d6");
  EXPECT_EQ(move_to_san(pos, m), "d6=M");
  EXPECT_EQ(parse_san(pos, "d6=M"), m);
  EXPECT_EQ(parse_san(pos, "d6"), m);  // "=M" is optional
  // Capture-promotion with check: the new promoted pawn on d6 attacks e7.
  Position cap = from_fen("8/4k3/3n4/4P3/8/8/8/K7 w - - 0 1");
  Move c = legal(cap, "e5", "d6");
  ASSERT_TRUE(c.is_promotion());
  EXPECT_EQ(move_to_san(cap, c), "exd6=M+");
  EXPECT_EQ(parse_san(cap, "exd6=M+"), c);
  EXPECT_EQ(parse_san(cap, "exd6=M"), c);
  EXPECT_EQ(parse_san(cap, "exd6"), c);
  // "=M" on a move that does not promote is refused.
  Position quiet = from_fen("4k3/8/8/8/3P4/8/8/K7 w - - 0 1");
  EXPECT_TRUE(parse_san(quiet, "d5=M").is_none());
  EXPECT_FALSE(parse_san(quiet, "d5").is_none());
}

TEST(San, CheckAndMate) {
  Position mate = from_fen("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
  EXPECT_EQ(san(mate, "a1", "a8"), "Ra8#");
  EXPECT_EQ(san(mate, "a1", "h1"), "Rh1+");
  EXPECT_EQ(san(mate, "a1", "a2"), "Ra2");
  EXPECT_EQ(parse_san(mate, "Ra8#"), Move(sq("a1"), sq("a8")));
  EXPECT_EQ(parse_san(mate, "Ra8"), Move(sq("a1"), sq("a8")));
  EXPECT_EQ(parse_san(mate, "Ra8+"), Move(sq("a1"), sq("a8")));
  EXPECT_EQ(parse_san(mate, "Rh1+"), Move(sq("a1"), sq("h1")));
  // A met-mover's check.
  Position met = from_fen("4k3/8/8/8/8/8/2M5/K7 w - - 0 1");
  EXPECT_EQ(san(met, "c2", "d3"), "Md3");
  Position chk = from_fen("8/8/8/8/4k3/8/2M5/K7 w - - 0 1");
  EXPECT_EQ(san(chk, "c2", "d3"), "Md3+");
}

TEST(San, DisambiguationByFile) {
  Position pos = from_fen("k7/8/8/8/8/8/8/1N3N1K w - - 0 1");
  EXPECT_EQ(san(pos, "b1", "d2"), "Nbd2");
  EXPECT_EQ(san(pos, "f1", "d2"), "Nfd2");
  EXPECT_EQ(san(pos, "b1", "a3"), "Na3");  // only one knight reaches a3
  EXPECT_EQ(parse_san(pos, "Nbd2"), Move(sq("b1"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "Nfd2"), Move(sq("f1"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "Nb1d2"), Move(sq("b1"), sq("d2")));  // over-specified is fine
  std::string error;
  EXPECT_TRUE(parse_san(pos, "Nd2", &error).is_none());
  EXPECT_NE(error.find("ambiguous"), std::string::npos) << error;

  Position rooks = from_fen("2k5/8/8/8/8/4K3/8/R6R w - - 0 1");
  EXPECT_EQ(san(rooks, "a1", "d1"), "Rad1");
  EXPECT_EQ(san(rooks, "h1", "d1"), "Rhd1");
  EXPECT_EQ(parse_san(rooks, "Rhd1"), Move(sq("h1"), sq("d1")));
  EXPECT_TRUE(parse_san(rooks, "Rd1").is_none());

  // With a capture.
  Position cap = from_fen("k7/8/8/8/8/8/3n4/1N3N1K w - - 0 1");
  EXPECT_EQ(san(cap, "b1", "d2"), "Nbxd2");
  EXPECT_EQ(san(cap, "f1", "d2"), "Nfxd2");
  EXPECT_EQ(parse_san(cap, "Nfxd2"), Move(sq("f1"), sq("d2")));
}

TEST(San, DisambiguationByRank) {
  Position knights = from_fen("k7/8/8/8/8/1N6/8/1N5K w - - 0 1");
  EXPECT_EQ(san(knights, "b1", "d2"), "N1d2");
  EXPECT_EQ(san(knights, "b3", "d2"), "N3d2");
  EXPECT_EQ(parse_san(knights, "N3d2"), Move(sq("b3"), sq("d2")));
  EXPECT_EQ(parse_san(knights, "N1d2"), Move(sq("b1"), sq("d2")));
  EXPECT_TRUE(parse_san(knights, "Nbd2").is_none());  // the file does not tell them apart

  Position rooks = from_fen("7k/8/8/R7/8/8/4K3/R7 w - - 0 1");
  EXPECT_EQ(san(rooks, "a1", "a3"), "R1a3");
  EXPECT_EQ(san(rooks, "a5", "a3"), "R5a3");
  EXPECT_EQ(parse_san(rooks, "R5a3"), Move(sq("a5"), sq("a3")));
}

TEST(San, DisambiguationBySquare) {
  // Three met-movers reach d2: c1 shares a file with c3 and a rank with e1.
  Position pos = from_fen("k7/8/8/8/8/2M~5/8/2M~1M2K w - - 0 1");
  EXPECT_EQ(san(pos, "c1", "d2"), "Mc1d2");
  EXPECT_EQ(san(pos, "c3", "d2"), "M3d2");
  EXPECT_EQ(san(pos, "e1", "d2"), "Med2");
  EXPECT_EQ(parse_san(pos, "Mc1d2"), Move(sq("c1"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "M3d2"), Move(sq("c3"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "Med2"), Move(sq("e1"), sq("d2")));
  EXPECT_TRUE(parse_san(pos, "Mcd2").is_none());
  EXPECT_TRUE(parse_san(pos, "M1d2").is_none());
}

TEST(San, MetAndPromotedPawnShareTheLetter) {
  Position pos = from_fen("k7/8/8/8/8/8/8/2M1M~2K w - - 0 1");
  ASSERT_EQ(type_of(pos.piece_on(sq("c1"))), MET);
  ASSERT_EQ(type_of(pos.piece_on(sq("e1"))), PROMOTED);
  EXPECT_EQ(san(pos, "c1", "d2"), "Mcd2");
  EXPECT_EQ(san(pos, "e1", "d2"), "Med2");
  EXPECT_EQ(san(pos, "e1", "f2"), "Mf2");  // a promoted pawn is written M
  EXPECT_EQ(parse_san(pos, "Mcd2"), Move(sq("c1"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "Med2"), Move(sq("e1"), sq("d2")));
  EXPECT_EQ(parse_san(pos, "Mf2"), Move(sq("e1"), sq("f2")));
  EXPECT_TRUE(parse_san(pos, "Md2").is_none());
}

TEST(San, OukJumps) {
  Position pos = from_fen(Position::OUK_START, Variant::Ouk);
  EXPECT_EQ(san(pos, "d1", "b2"), "Kb2");
  EXPECT_EQ(san(pos, "d1", "f2"), "Kf2");
  EXPECT_EQ(parse_san(pos, "Kb2"), Move(sq("d1"), sq("b2")));
  EXPECT_EQ(parse_san(pos, "Kf2"), Move(sq("d1"), sq("f2")));
  play(pos, {"e3e4", "d6d5"});
  EXPECT_EQ(san(pos, "e1", "e3"), "Me3");
  EXPECT_EQ(parse_san(pos, "Me3"), Move(sq("e1"), sq("e3")));
  EXPECT_EQ(parse_move(pos, "e1e3"), Move(sq("e1"), sq("e3")));
  play(pos, {"e1e3"});
  EXPECT_EQ(san(pos, "e8", "c7"), "Kc7");
  EXPECT_EQ(san(pos, "e8", "g7"), "Kg7");
  EXPECT_EQ(san(pos, "d8", "d6"), "Md6");
  EXPECT_EQ(parse_san(pos, "Md6"), Move(sq("d8"), sq("d6")));
  EXPECT_EQ(parse_san(pos, "Kg7"), Move(sq("e8"), sq("g7")));
}

TEST(San, MalformedRefused) {
  Position pos;
  for (const char* text : {"", "N", "K", "x", "+", "#", "=M", "Nz9", "Ni2", "N9", "xe4", "Ke", "Qd2",
                           "Bd2", "nd2", "e4e5", "e3e4", "Nbb1d2", "N11d2", "e4=Q", "exe4",
                           "\xe0\xb8\x82" "c2", "N d2", "e9", "\x80\x80"}) {
    std::string error;
    EXPECT_TRUE(parse_san(pos, text, &error).is_none()) << "'" << text << "'";
    EXPECT_FALSE(error.empty()) << "'" << text << "'";
  }
  // Well formed but not legal.
  std::string error;
  EXPECT_TRUE(parse_san(pos, "e5", &error).is_none());
  EXPECT_NE(error.find("illegal"), std::string::npos) << error;
  EXPECT_TRUE(parse_san(pos, "Rd2", &error).is_none());
  EXPECT_TRUE(parse_san(pos, "Kb2", &error).is_none());  // no jumps in Makruk
}

// ---------------------------------------------------------------------------
// Thai SAN

TEST(ThaiSan, Letters) {
  Position pos;
  EXPECT_EQ(move_to_thai_san(pos, legal(pos, "d1", "c2")), "ขc2");
  EXPECT_EQ(move_to_thai_san(pos, legal(pos, "e1", "d2")), "ม็d2");
  EXPECT_EQ(move_to_thai_san(pos, legal(pos, "c1", "c2")), "คc2");
  EXPECT_EQ(move_to_thai_san(pos, legal(pos, "b1", "d2")), "มd2");
  EXPECT_EQ(move_to_thai_san(pos, legal(pos, "a1", "a2")), "รa2");
  EXPECT_EQ(move_to_thai_san(pos, legal(pos, "e3", "e4")), "e4");
}

TEST(ThaiSan, PromotionCheckAndDisambiguation) {
  Position cap = from_fen("8/4k3/3n4/4P3/8/8/8/K7 w - - 0 1");
  EXPECT_EQ(move_to_thai_san(cap, legal(cap, "e5", "d6")), "exd6=ม็+");
  Position quiet = from_fen("4k3/8/8/3P4/8/8/8/K7 w - - 0 1");
  EXPECT_EQ(move_to_thai_san(quiet, legal(quiet, "d5", "d6")), "d6=ม็");
  Position knights = from_fen("k7/8/8/8/8/8/8/1N3N1K w - - 0 1");
  EXPECT_EQ(move_to_thai_san(knights, legal(knights, "b1", "d2")), "มbd2");
  Position mate = from_fen("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
  EXPECT_EQ(move_to_thai_san(mate, legal(mate, "a1", "a8")), "รa8#");
  Position mets = from_fen("k7/8/8/8/8/8/8/2M1M~2K w - - 0 1");
  EXPECT_EQ(move_to_thai_san(mets, legal(mets, "e1", "d2")), "ม็ed2");
}

// ---------------------------------------------------------------------------
// Round trips over random playouts

struct RoundTripStats {
  int positions = 0, moves = 0, promotions = 0, captures = 0, checks = 0, disambiguated = 0;
};

void check_position(const Position& pos, RoundTripStats& stats) {
  ++stats.positions;
  // FEN round trip.
  Position copy;
  std::string error;
  ASSERT_TRUE(copy.set(pos.fen(), pos.variant(), pos.counting(), &error)) << pos.fen() << ": " << error;
  EXPECT_EQ(copy.fen(), pos.fen());
  EXPECT_EQ(copy.key(), pos.key());
  EXPECT_EQ(copy.rights(), pos.rights());

  MoveList list;
  generate_legal(pos, list);
  std::set<std::string> sans, thai, coords;
  for (Move m : list) {
    ++stats.moves;
    std::string s = move_to_san(pos, m);
    std::string c = move_to_string(m);
    EXPECT_EQ(parse_san(pos, s, &error), m) << pos.fen() << " " << c << " '" << s << "': " << error;
    EXPECT_EQ(parse_move(pos, c, &error), m) << pos.fen() << " '" << c << "': " << error;
    if (m.is_promotion()) {
      ++stats.promotions;
      EXPECT_EQ(parse_move(pos, c.substr(0, 4), &error), m) << pos.fen() << " " << c;
      EXPECT_NE(s.find("=M"), std::string::npos) << s;
    } else {
      EXPECT_TRUE(parse_move(pos, c + "m").is_none()) << pos.fen() << " " << c << "m";
    }
    // Without check marks the SAN still names the move.
    std::string bare = s;
    while (!bare.empty() && (bare.back() == '+' || bare.back() == '#')) bare.pop_back();
    if (bare != s) ++stats.checks;
    EXPECT_EQ(parse_san(pos, bare), m) << pos.fen() << " " << bare;
    if (pos.piece_on(m.to()) != NO_PIECE) ++stats.captures;
    if (type_of(pos.piece_on(m.from())) != PAWN && bare.size() > 3 + (bare.find('x') != std::string::npos))
      ++stats.disambiguated;
    EXPECT_TRUE(sans.insert(s).second) << "duplicate SAN " << s << " in " << pos.fen();
    EXPECT_TRUE(coords.insert(c).second) << "duplicate move " << c << " in " << pos.fen();
    std::string t = move_to_thai_san(pos, m);
    EXPECT_TRUE(thai.insert(t).second) << "duplicate Thai SAN " << t << " in " << pos.fen();
  }
}

RoundTripStats random_playouts(Variant v, std::string_view fen, uint32_t seed, int games, int maxPlies) {
  std::mt19937 rng(seed);
  RoundTripStats stats;
  for (int g = 0; g < games; ++g) {
    Position pos = from_fen(fen, v);
    for (int ply = 0; ply < maxPlies; ++ply) {
      check_position(pos, stats);
      if (::testing::Test::HasFailure()) return stats;
      MoveList list;
      generate_legal(pos, list);
      if (list.size == 0) break;
      // Lean towards captures so that games reach endgames and promotions.
      Move m = list.moves[rng() % list.size];
      if (rng() % 2)
        for (Move x : list)
          if (pos.piece_on(x.to()) != NO_PIECE || x.is_promotion()) m = x;
      pos.do_move(m);
      if (popcount(pos.pieces()) == 2) break;
    }
  }
  return stats;
}

TEST(RoundTrip, MakrukPlayouts) {
  RoundTripStats s = random_playouts(Variant::Makruk, Position::MAKRUK_START, 20240611, 40, 200);
  EXPECT_GT(s.positions, 2000);
  EXPECT_GT(s.promotions, 20);
  EXPECT_GT(s.checks, 20);
  EXPECT_GT(s.disambiguated, 20);
}

TEST(RoundTrip, OukPlayouts) {
  RoundTripStats s = random_playouts(Variant::Ouk, Position::OUK_START, 777, 40, 200);
  EXPECT_GT(s.positions, 2000);
  EXPECT_GT(s.promotions, 20);
  EXPECT_GT(s.checks, 20);
}

TEST(RoundTrip, FromMidgamePositions) {
  random_playouts(Variant::Makruk, "1mnk4/4r3/1sr1p1MM/MP2p3/2p3P1/2m5/3NKS1R/1R2S1N1 w - - 0 56", 5, 10, 80);
  random_playouts(Variant::Makruk, "1m1N4/1MSn4/5s1k/2p5/1mSm1r2/7P/8/2KR2r1 w - - 4 61", 6, 10, 80);
  random_playouts(Variant::Ouk, "rnsmks1r/4n3/p1pppppp/8/R2P4/1PP1PPPP/6S1/1NSKM1NR b DEde - 0 4", 7, 10, 80);
  random_playouts(Variant::Ouk, "rn1mk1nr/2s1s3/ppp1pppp/3p4/8/PPPPPPPP/2SMN3/RN1K1S1R w Dde - 2 4", 8, 10, 80);
}

}  // namespace

// ---------------------------------------------------------------------------
// Typed moves (the game screen's move box)

TEST(TypedMove, EveryLegalMoveInEveryFormAPlayerTypes) {
  std::mt19937 rng(99);
  int checked = 0;
  for (Variant v : {Variant::Makruk, Variant::Ouk}) {
    for (int game = 0; game < 12; ++game) {
      Position pos = from_fen(v == Variant::Makruk ? Position::MAKRUK_START : Position::OUK_START, v);
      for (int ply = 0; ply < 160; ++ply) {
        MoveList list;
        generate_legal(pos, list);
        if (list.size == 0 || popcount(pos.pieces()) == 2) break;
        for (Move m : list) {
          const std::string san = move_to_san(pos, m), c = move_to_string(m);
          std::string bare = san;
          while (!bare.empty() && (bare.back() == '+' || bare.back() == '#')) bare.pop_back();
          std::string no_x = bare;
          std::erase(no_x, 'x');
          std::string lower = bare;
          if (lower[0] >= 'A' && lower[0] <= 'Z') lower[0] = char(lower[0] - 'A' + 'a');
          for (const std::string& text : {san, bare, no_x, lower, c, c.substr(0, 2) + "-" + c.substr(2), " " + c + " ",
                                          move_in_script(pos, m, Script::Thai), move_in_script(pos, m, Script::Khmer)}) {
            TypedError why;
            EXPECT_EQ(parse_typed_move(pos, text, &why), m)
                << pos.fen() << " '" << text << "' (" << typed_error_string(why) << ")";
            ++checked;
          }
        }
        Move m = list.moves[rng() % list.size];
        if (rng() % 2)
          for (Move x : list)
            if (pos.piece_on(x.to()) != NO_PIECE || x.is_promotion()) m = x;
        pos.do_move(m);
      }
    }
  }
  EXPECT_GT(checked, 50000);
}

TEST(TypedMove, WhatPlayersTypeAndWhatIsRefused) {
  Position start = from_fen(Position::MAKRUK_START);
  auto typed = [](const Position& pos, std::string_view text) {
    TypedError why;
    Move m = parse_typed_move(pos, text, &why);
    return m.is_none() ? std::string(typed_error_string(why)) : move_to_string(m);
  };
  EXPECT_EQ(typed(start, "e4"), "e3e4");
  EXPECT_EQ(typed(start, "Nd2"), "b1d2");
  EXPECT_EQ(typed(start, "nd2"), "b1d2");
  EXPECT_EQ(typed(start, "b1-d2"), "b1d2");
  EXPECT_EQ(typed(start, "B1D2"), "b1d2");
  EXPECT_EQ(typed(start, "มง๒"), "b1d2");     // Thai: Ma to d2
  EXPECT_EQ(typed(start, "มข๑ง๒"), "b1d2");   // the whole from-square
  EXPECT_EQ(typed(start, "จ๔"), "e3e4");       // a pawn, Thai
  EXPECT_EQ(typed(start, "ង៤"), "e3e4");       // a pawn, Khmer
  EXPECT_EQ(typed(start, "សឃ២"), "b1d2");      // Khmer: Seh to d2
  EXPECT_EQ(typed(start, ""), "empty");
  EXPECT_EQ(typed(start, "   "), "empty");
  EXPECT_EQ(typed(start, "hello"), "bad");
  EXPECT_EQ(typed(start, "Ke3"), "illegal");
  EXPECT_EQ(typed(start, "e3e5"), "illegal");
  EXPECT_EQ(typed(start, "exd4"), "illegal");  // no capture there
  EXPECT_EQ(typed(start, "e3"), "illegal");    // a pawn moves forward only
  EXPECT_EQ(typed(start, "Nxd2"), "illegal");  // 'x' on a quiet move
  EXPECT_EQ(typed(start, "e34"), "bad");
  EXPECT_EQ(typed(start, std::string("\xe0\xb8", 2)), "bad");  // a cut UTF-8 sequence
  // Two knights can reach d2: the file or the square tells them apart.
  Position knights = from_fen("k7/8/8/8/8/8/8/1N3N1K w - - 0 1");
  EXPECT_EQ(typed(knights, "Nd2"), "ambiguous");
  EXPECT_EQ(typed(knights, "Nbd2"), "b1d2");
  EXPECT_EQ(typed(knights, "มฉง๒"), "f1d2");  // Thai, the file letter alone
  // A pawn capture in Thai names the square it leaves: ข is also the Khun's letter.
  Position capture = from_fen("4k3/8/8/8/2p5/1P6/8/4K3 w - - 0 1");
  EXPECT_EQ(typed(capture, "ข๓×ค๔"), "b3c4");
  EXPECT_EQ(typed(capture, "bxc4"), "b3c4");
  EXPECT_EQ(typed(capture, "bc4"), "b3c4");
  EXPECT_EQ(typed(capture, "b3xc4"), "b3c4");
  // Promotion, with or without "=M", in any script.
  Position promo = from_fen("4k3/8/8/3P4/8/8/8/K7 w - - 0 1");
  for (const char* t : {"d6", "d6=M", "d5d6", "d5d6m", "ง๖=ม็", "ឃ៦=ន"}) EXPECT_EQ(typed(promo, t), "d5d6m") << t;
}

// The game screen's Thai and Khmer (notation.ts), written by the core for `makruk pgn`.
TEST(TypedMove, ThaiAndKhmerAsTheGameScreenWritesThem) {
  auto in = [](std::string_view fen, std::string_view move, Script script) {
    const Position pos = from_fen(fen);
    return move_in_script(pos, parse_move(pos, move), script);
  };
  const std::string_view start = Position::MAKRUK_START;
  EXPECT_EQ(in(start, "b1d2", Script::Thai), "มง๒");
  EXPECT_EQ(in(start, "b1d2", Script::Khmer), "សឃ២");
  EXPECT_EQ(in(start, "e3e4", Script::Thai), "จ๔");
  EXPECT_EQ(in(start, "e3e4", Script::Khmer), "ង៤");
  EXPECT_EQ(in("4k3/8/8/8/2p5/1P6/8/4K3 w - - 0 1", "b3c4", Script::Thai), "ข๓×ค๔");
  EXPECT_EQ(in("k7/8/8/8/8/8/8/1N3N1K w - - 0 1", "f1d2", Script::Thai), "มฉง๒");
  EXPECT_EQ(in("4k3/8/8/3P4/8/8/8/K7 w - - 0 1", "d5d6m", Script::Thai), "ง๖=ม็");
  EXPECT_EQ(in("4k3/8/8/3P4/8/8/8/K7 w - - 0 1", "d5d6m", Script::Khmer), "ឃ៦=ន");
  EXPECT_EQ(in("k7/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8", Script::Khmer), "ទជ៨#");
}
