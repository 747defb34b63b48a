// Positions: FEN read and write (docs/rules.md §8), refusal of malformed FENs, and
// do_move/undo_move over random playouts (key, checkers, consistency).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/movegen.h"
#include "core/notation.h"
#include "helpers.h"

using namespace makruk;

using makruk::testing_helpers::from_fen;
using makruk::testing_helpers::sq;

namespace {

// ---------------------------------------------------------------------------
// Reading and writing

TEST(Fen, DefaultIsMakrukStart) {
  Position pos;
  EXPECT_EQ(pos.fen(), Position::MAKRUK_START);
  EXPECT_EQ(pos.variant(), Variant::Makruk);
  EXPECT_TRUE(pos.is_consistent());
}

TEST(Fen, StartPositions) {
  Position mak = from_fen(Position::MAKRUK_START, Variant::Makruk);
  EXPECT_EQ(mak.fen(), Position::MAKRUK_START);
  EXPECT_EQ(mak.side_to_move(), WHITE);
  EXPECT_EQ(mak.rights(), NO_RIGHTS);
  EXPECT_EQ(mak.game_ply(), 0);
  EXPECT_FALSE(mak.in_check());
  EXPECT_EQ(popcount(mak.pieces()), 32);
  EXPECT_EQ(mak.piece_on(sq("d1")), make_piece(WHITE, KING));
  EXPECT_EQ(mak.piece_on(sq("e1")), make_piece(WHITE, MET));
  EXPECT_EQ(mak.piece_on(sq("d8")), make_piece(BLACK, MET));
  EXPECT_EQ(mak.piece_on(sq("e8")), make_piece(BLACK, KING));
  EXPECT_EQ(mak.piece_on(sq("c1")), make_piece(WHITE, KHON));
  EXPECT_EQ(mak.piece_on(sq("g8")), make_piece(BLACK, KNIGHT));
  EXPECT_EQ(mak.piece_on(sq("h1")), make_piece(WHITE, ROOK));
  EXPECT_EQ(mak.piece_on(sq("a3")), make_piece(WHITE, PAWN));
  EXPECT_EQ(mak.piece_on(sq("h6")), make_piece(BLACK, PAWN));
  EXPECT_EQ(mak.piece_on(sq("e4")), NO_PIECE);
  EXPECT_EQ(mak.key(), mak.compute_key());

  Position ouk = from_fen(Position::OUK_START, Variant::Ouk);
  EXPECT_EQ(ouk.fen(), Position::OUK_START);
  EXPECT_EQ(ouk.variant(), Variant::Ouk);
  EXPECT_EQ(ouk.rights(), WHITE_KING_RIGHT | WHITE_NEANG_RIGHT | BLACK_NEANG_RIGHT | BLACK_KING_RIGHT);
  // The same placement with rights is a different position.
  EXPECT_NE(ouk.key(), mak.key());
  EXPECT_EQ(Position::start_fen(Variant::Makruk), Position::MAKRUK_START);
  EXPECT_EQ(Position::start_fen(Variant::Ouk), Position::OUK_START);
}

TEST(Fen, SideToMoveAndMoveNumber) {
  Position pos = from_fen("rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1");
  EXPECT_EQ(pos.side_to_move(), BLACK);
  EXPECT_EQ(pos.game_ply(), 1);
  EXPECT_EQ(pos.fen(), "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1");
  Position later = from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 37");
  EXPECT_EQ(later.game_ply(), 72);
  EXPECT_EQ(later.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 37");
  // The board and side alone are enough; the rest defaults.
  Position shortFen = from_fen("4k3/8/8/8/8/8/8/4K3 b");
  EXPECT_EQ(shortFen.fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
  Position extraSpaces = from_fen("  4k3/8/8/8/8/8/8/4K3   w  -  -  0  5 ");
  EXPECT_EQ(extraSpaces.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 5");
}

TEST(Fen, PromotedPawnsReadAndWritten) {
  std::string fen = "4k3/8/3M~4/8/8/2m~5/8/4K3 w - - 0 1";
  Position pos = from_fen(fen);
  EXPECT_EQ(pos.piece_on(sq("d6")), make_piece(WHITE, PROMOTED));
  EXPECT_EQ(pos.piece_on(sq("c3")), make_piece(BLACK, PROMOTED));
  EXPECT_EQ(pos.fen(), fen);
  EXPECT_EQ(popcount(pos.met_movers(WHITE)), 1);
  EXPECT_EQ(popcount(pos.pieces(WHITE, MET)), 0);
  // A met and a promoted pawn are different pieces for the key.
  Position met = from_fen("4k3/8/3M4/8/8/2m~5/8/4K3 w - - 0 1");
  EXPECT_EQ(met.piece_on(sq("d6")), make_piece(WHITE, MET));
  EXPECT_NE(met.key(), pos.key());
  EXPECT_EQ(met.fen(), "4k3/8/3M4/8/8/2m~5/8/4K3 w - - 0 1");
  // Promoted pawns on any square, several of them, next to others.
  std::string many = "k7/8/M~M~M~M~4/8/8/8/m~m~6/7K w - - 0 1";
  EXPECT_EQ(from_fen(many).fen(), many);
}

TEST(Fen, FairyStockfishCountNumbersIgnored) {
  Position pos = from_fen("8/8/6k1/1n6/8/5S2/3K4/8 b - 128 17 61");
  EXPECT_EQ(pos.side_to_move(), BLACK);
  EXPECT_EQ(pos.game_ply(), 121);
  EXPECT_EQ(pos.fen(), "8/8/6k1/1n6/8/5S2/3K4/8 b - - 0 61");
  Position plain = from_fen("8/8/6k1/1n6/8/5S2/3K4/8 b - - 0 61");
  EXPECT_EQ(pos.key(), plain.key());
  EXPECT_EQ(pos.count(), plain.count());
  for (const char* fen : {"1S6/8/8/2M4k/8/K7/7S/2m5 w - 128 16 85", "3k4/8/8/7p/7P/2s5/4K3/8 b - 126 46 96",
                          "8/8/8/R7/8/8/4k3/2K5 b - 30 30 47", "8/K3s3/7p/7P/8/8/2k5/8 w - 126 24 63"}) {
    Position p;
    std::string error;
    EXPECT_TRUE(p.set(fen, Variant::Makruk, Counting::Automatic, &error)) << fen << ": " << error;
  }
  // Ouk too.
  Position ouk;
  std::string error;
  EXPECT_TRUE(ouk.set("8/8/6k1/1n6/8/5S2/3K4/8 w - 64 3 20", Variant::Ouk, Counting::Automatic, &error))
      << error;
}

TEST(Fen, OukRights) {
  Position pos = from_fen(Position::OUK_START, Variant::Ouk);
  EXPECT_EQ(pos.rights(), 15);
  struct Case {
    const char* field;
    uint8_t rights;
    const char* written;
  };
  for (Case c : {Case{"D", WHITE_KING_RIGHT, "D"}, Case{"E", WHITE_NEANG_RIGHT, "E"},
                 Case{"d", BLACK_NEANG_RIGHT, "d"}, Case{"e", BLACK_KING_RIGHT, "e"},
                 Case{"De", WHITE_KING_RIGHT | BLACK_KING_RIGHT, "De"},
                 Case{"eDdE", 15, "DEde"}, Case{"-", NO_RIGHTS, "-"}}) {
    std::string fen = std::string("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w ") + c.field + " - 0 1";
    Position p = from_fen(fen, Variant::Ouk);
    EXPECT_EQ(p.rights(), c.rights) << c.field;
    EXPECT_EQ(p.fen(), std::string("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w ") + c.written + " - 0 1");
    EXPECT_EQ(p.key(), p.compute_key());
  }
  // Rights are part of the key.
  EXPECT_NE(from_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w De - 0 1", Variant::Ouk).key(),
            from_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w Ed - 0 1", Variant::Ouk).key());
  // No rights field at all means none.
  EXPECT_EQ(from_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w", Variant::Ouk).rights(), NO_RIGHTS);
}

TEST(Fen, PerftPositionsRoundTrip) {
  const char* fens[] = {
      "rnsm1snr/6k1/pppp2pp/P3pp2/8/1PPPPPPP/RSK2M2/1N3SNR w - - 1 7",
      "1mnk4/4r3/1sr1p1MM/MP2p3/2p3P1/2m5/3NKS1R/1R2S1N1 w - - 0 56",
      "3m1s1k/n5r1/4p2p/5pr1/1N1p3P/1PMs1mP1/1R6/K1S2SR1 b d - 11 32",
      "rnkm1sr1/2s1n3/ppp1pp1M/8/2p1P1P1/PPPP1P2/4NK2/R1S1MS1R b Ed - 0 15",
      "rns1k1nr/2m3s1/pppppppp/8/1P2P3/P1PP1PPP/4S3/RNSKM1NR b DEe - 0 3",
  };
  for (const char* fen : fens) {
    Variant v = std::string_view(fen).find(" - - ") == std::string_view::npos ? Variant::Ouk : Variant::Makruk;
    // Positions with "-" rights may be either variant.
    Position p = from_fen(fen, v);
    std::string w = p.fen();
    // fen() normalises the halfmove field to 0.
    std::string_view f = fen;
    size_t moveNo = f.rfind(' ');
    size_t half = f.rfind(' ', moveNo - 1);
    std::string expect = std::string(f.substr(0, half)) + " 0" + std::string(f.substr(moveNo));
    EXPECT_EQ(w, expect);
    Position q = from_fen(w, v);
    EXPECT_EQ(q.fen(), w);
    EXPECT_EQ(q.key(), p.key());
    EXPECT_TRUE(p.is_consistent());
  }
}

// ---------------------------------------------------------------------------
// Malformed FENs: refused with an error naming the field and the problem, and
// the position is left as it was.

struct BadFen {
  const char* fen;
  Variant variant;
  std::vector<const char*> mentions;  // each must appear in the error
};

const BadFen BAD_FENS[] = {
    // Board: letters, rank lengths, rank count, kings, pawns.
    {"rnsqksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "letter", "q"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNB w - - 0 1", Variant::Makruk, {"board", "letter", "B"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPXPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "letter", "X"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN? w - - 0 1", Variant::Makruk, {"board", "?"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN9 w - - 0 1", Variant::Makruk, {"board"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN0 w - - 0 1", Variant::Makruk, {"board"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMS~R w - - 0 1", Variant::Makruk, {"board", "~"}},
    {"~nsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "~"}},
    {"rnsmksnr/7/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "rank 7", "8 squares"}},
    {"rnsmksnr/8/ppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "rank 6", "8 squares"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN w - - 0 1", Variant::Makruk, {"board", "8"}},
    {"rnsmksnrr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "rank 8", "more than 8"}},
    {"rnsmksnr/44p/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "rank 7", "more than 8"}},
    {"rnsmksnr/81/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "rank 7", "more than 8"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR/8 w - - 0 1", Variant::Makruk, {"board", "more than 8 ranks"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR/ w - - 0 1", Variant::Makruk, {"board", "ranks"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "8 ranks"}},
    {"8/8/8/8/8/8/8 w - - 0 1", Variant::Makruk, {"board", "8 ranks"}},
    {"rnsm1snr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, {"board", "Black", "king"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNS1MSNR w - - 0 1", Variant::Makruk, {"board", "White", "king"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKKSNR w - - 0 1", Variant::Makruk, {"board", "White", "one king"}},
    {"k6k/8/8/8/8/8/8/4K3 w - - 0 1", Variant::Makruk, {"board", "Black", "one king"}},
    {"8/8/8/8/8/8/8/8 w - - 0 1", Variant::Makruk, {"board", "king"}},
    {"4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", Variant::Makruk, {"board", "pawn", "sixth rank", "d6"}},
    {"4k3/P7/8/8/8/8/8/4K3 w - - 0 1", Variant::Makruk, {"board", "pawn", "a7"}},
    {"4k3/8/8/8/8/5p2/8/4K3 w - - 0 1", Variant::Makruk, {"board", "pawn", "sixth rank", "f3"}},
    {"4k3/8/8/8/8/8/8/p3K3 b - - 0 1", Variant::Ouk, {"board", "pawn", "a1"}},
    // Side to move.
    {"4k3/8/8/8/8/8/8/4K3 x - - 0 1", Variant::Makruk, {"side to move", "'x'"}},
    {"4k3/8/8/8/8/8/8/4K3 W - - 0 1", Variant::Makruk, {"side to move", "'W'"}},
    {"4k3/8/8/8/8/8/8/4K3 wb - - 0 1", Variant::Makruk, {"side to move", "'wb'"}},
    {"4k3/8/8/8/8/8/8/4K3 - w - 0 1", Variant::Makruk, {"side to move"}},
    // Rights.
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DX - 0 1", Variant::Ouk, {"rights", "'X'"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w KQkq - 0 1", Variant::Ouk, {"rights", "'K'"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DD - 0 1", Variant::Ouk, {"rights", "'D'", "repeated"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w D- - 0 1", Variant::Ouk, {"rights", "'-'"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1", Variant::Makruk, {"rights", "Makruk"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w d - 0 1", Variant::Makruk, {"rights", "Makruk"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/2K5/RNS1MSNR w D - 0 1", Variant::Ouk, {"rights", "'D'", "king"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/5M2/RNSK1SNR w E - 0 1", Variant::Ouk, {"rights", "'E'", "neang"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKM~SNR w E - 0 1", Variant::Ouk, {"rights", "'E'", "neang"}},
    {"rns1ksnr/3m4/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w d - 0 1", Variant::Ouk, {"rights", "'d'", "neang"}},
    {"rnsm1snr/4k3/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w e - 0 1", Variant::Ouk, {"rights", "'e'", "king"}},
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSMKSNR w D - 0 1", Variant::Ouk, {"rights", "'D'"}},
    // Side not to move in check (and kings touching).
    {"4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", Variant::Makruk, {"check"}},
    {"4k3/8/8/8/8/8/8/4K2r b - - 0 1", Variant::Makruk, {"check"}},
    {"8/8/8/3kK3/8/8/8/8 w - - 0 1", Variant::Makruk, {"check"}},
    {"4k3/3P4/8/8/8/8/8/4K3 w - - 0 1", Variant::Ouk, {}},  // pawn on 7th rank is refused first
    // Numbers.
    {"4k3/8/8/8/8/8/8/4K3 w - x 0 1", Variant::Makruk, {"field 4", "'x'"}},
    {"4k3/8/8/8/8/8/8/4K3 w - e3 0 1", Variant::Makruk, {"field 4", "'e3'"}},
    {"4k3/8/8/8/8/8/8/4K3 w - -1 0 1", Variant::Makruk, {"field 4"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - x 1", Variant::Makruk, {"field 5", "'x'"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - -3 1", Variant::Makruk, {"field 5"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 0", Variant::Makruk, {"move number", "'0'"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 -1", Variant::Makruk, {"move number", "'-1'"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 one", Variant::Makruk, {"move number", "'one'"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 1.5", Variant::Makruk, {"move number"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999999999999", Variant::Makruk, {"move number"}},
    {"4k3/8/8/8/8/8/8/4K3 w - 128 99999999999 1", Variant::Makruk, {"field 5"}},
    // Field counts.
    {"", Variant::Makruk, {"FEN"}},
    {"   ", Variant::Makruk, {"FEN"}},
    {"4k3/8/8/8/8/8/8/4K3", Variant::Makruk, {"side to move"}},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", Variant::Makruk, {"too many fields"}},
};

TEST(Fen, MalformedRefusedAndPositionUnchanged) {
  for (const BadFen& bad : BAD_FENS) {
    // Start from a position that differs from both start positions in every respect.
    Position pos;
    std::string error;
    const char* before = "rnsm1snr/5k2/pp3ppp/2p1p3/P5P1/2PPPP1P/3K4/RNS1MSNR b Ed - 1 5";
    ASSERT_TRUE(pos.set(before, Variant::Ouk, Counting::Declaration, &error)) << error;
    ASSERT_FALSE(parse_move(pos, "f7e7").is_none());
    pos.do_move(parse_move(pos, "f7e7"));  // a history, too
    std::string fen = pos.fen();
    uint64_t key = pos.key();
    size_t history = pos.history_size();

    error.clear();
    EXPECT_FALSE(pos.set(bad.fen, bad.variant, Counting::Automatic, &error)) << "accepted: '" << bad.fen << "'";
    EXPECT_FALSE(error.empty()) << bad.fen;
    EXPECT_NE(error.find("FEN"), std::string::npos) << bad.fen << " -> " << error;
    for (const char* word : bad.mentions)
      EXPECT_NE(error.find(word), std::string::npos)
          << "'" << bad.fen << "' -> \"" << error << "\" does not mention \"" << word << "\"";

    EXPECT_EQ(pos.fen(), fen) << bad.fen;
    EXPECT_EQ(pos.key(), key) << bad.fen;
    EXPECT_EQ(pos.variant(), Variant::Ouk) << bad.fen;
    EXPECT_EQ(pos.counting(), Counting::Declaration) << bad.fen;
    EXPECT_EQ(pos.history_size(), history) << bad.fen;
    EXPECT_EQ(pos.game_ply(), 10) << bad.fen;
    EXPECT_TRUE(pos.is_consistent()) << bad.fen;
    // Still usable: the move made before can be taken back.
    pos.undo_move();
    EXPECT_EQ(pos.fen(), "rnsm1snr/5k2/pp3ppp/2p1p3/P5P1/2PPPP1P/3K4/RNS1MSNR b Ed - 0 5") << bad.fen;
  }
}

TEST(Fen, RefusalWithoutErrorPointer) {
  Position pos;
  EXPECT_FALSE(pos.set("nonsense", Variant::Makruk, Counting::Automatic, nullptr));
  EXPECT_FALSE(pos.set("4k3/8/8/8/8/8/8/4K3 w DE", Variant::Makruk, Counting::Automatic, nullptr));
  EXPECT_EQ(pos.fen(), Position::MAKRUK_START);
}

TEST(Fen, TooMuchMaterialRefused) {
  // More pieces than a game can have would overflow fixed-size move lists.
  Position pos;
  std::string error;
  EXPECT_FALSE(pos.set("k7/8/RRRRRRRR/RRRRRRRR/RRRRRRRR/8/8/7K w - - 0 1", Variant::Makruk,
                       Counting::Automatic, &error));
  EXPECT_NE(error.find("board"), std::string::npos) << error;
  EXPECT_FALSE(pos.set("k7/8/NNNNNNNN/NNNNNNNN/8/8/8/7K w - - 0 1", Variant::Makruk, Counting::Automatic, &error));
  EXPECT_FALSE(pos.set("k7/8/pppppppp/p7/8/8/8/7K w - - 0 1", Variant::Makruk, Counting::Automatic, &error));
  EXPECT_EQ(pos.fen(), Position::MAKRUK_START);
  // The full material of a game with every pawn promoted is fine.
  EXPECT_TRUE(pos.set("rnsmksnr/m~m~m~m~m~m~m~m~/8/8/8/8/M~M~M~M~M~M~M~M~/RNSKMSNR w - - 0 1", Variant::Makruk,
                      Counting::Automatic, &error))
      << error;
}

// ---------------------------------------------------------------------------
// do_move / undo_move

struct Snapshot {
  std::string fen;
  uint64_t key;
  Bitboard checkers;
  Count count;
  uint8_t rights;
  int ply;

  explicit Snapshot(const Position& p)
      : fen(p.fen()), key(p.key()), checkers(p.checkers()), count(p.count()), rights(p.rights()),
        ply(p.game_ply()) {}
  bool operator==(const Snapshot&) const = default;
};

void expect_same(const Position& pos, const Snapshot& s, const std::string& where) {
  EXPECT_EQ(pos.fen(), s.fen) << where;
  EXPECT_EQ(pos.key(), s.key) << where;
  EXPECT_EQ(pos.checkers(), s.checkers) << where;
  EXPECT_TRUE(pos.count() == s.count) << where;
  EXPECT_EQ(pos.rights(), s.rights) << where;
  EXPECT_EQ(pos.game_ply(), s.ply) << where;
  EXPECT_TRUE(pos.is_consistent()) << where;
}

int playouts(Variant v, Counting mode, std::string_view fen, uint32_t seed, int games, int maxPlies) {
  std::mt19937 rng(seed);
  int checked = 0;
  for (int g = 0; g < games; ++g) {
    Position pos;
    std::string error;
    EXPECT_TRUE(pos.set(fen, v, mode, &error)) << error;
    const Snapshot root(pos);
    std::vector<Snapshot> path;
    for (int ply = 0; ply < maxPlies; ++ply) {
      const Snapshot here(pos);
      MoveList list;
      generate_legal(pos, list);
      for (Move m : list) {
        const std::string where = here.fen + " " + move_to_string(m);
        pos.do_move(m);
        ++checked;
        EXPECT_EQ(pos.key(), pos.compute_key()) << where;
        EXPECT_TRUE(pos.is_consistent()) << where;
        EXPECT_EQ(pos.last_move(), m) << where;
        EXPECT_EQ(pos.side_to_move(), ~Color(here.ply & 1 ? BLACK : WHITE)) << where;
        pos.undo_move();
        expect_same(pos, here, "after undoing " + where);
        if (::testing::Test::HasFailure()) return checked;
      }
      if (list.size == 0) break;
      Move m = list.moves[rng() % list.size];
      if (rng() % 2)  // lean towards captures so that games reach endgames
        for (Move x : list)
          if (pos.piece_on(x.to()) != NO_PIECE || x.is_promotion()) m = x;
      path.push_back(here);
      pos.do_move(m);
      EXPECT_EQ(pos.key(), pos.compute_key());
      EXPECT_TRUE(pos.is_consistent());
      // The FEN of the new position reads back to the same key.
      Position copy;
      EXPECT_TRUE(copy.set(pos.fen(), v, mode, &error)) << pos.fen() << ": " << error;
      EXPECT_EQ(copy.key(), pos.key()) << pos.fen();
      EXPECT_EQ(copy.fen(), pos.fen());
      if (popcount(pos.pieces()) == 2) break;
    }
    // Take the whole game back.
    while (!path.empty()) {
      pos.undo_move();
      expect_same(pos, path.back(), "unwinding game " + std::to_string(g));
      path.pop_back();
      if (::testing::Test::HasFailure()) return checked;
    }
    expect_same(pos, root, "root of game " + std::to_string(g));
    EXPECT_EQ(pos.history_size(), 1u);
  }
  return checked;
}

TEST(MakeUnmake, MakrukPlayouts) {
  EXPECT_GT(playouts(Variant::Makruk, Counting::Automatic, Position::MAKRUK_START, 1, 30, 250), 50000);
  playouts(Variant::Makruk, Counting::Declaration, Position::MAKRUK_START, 2, 10, 250);
}

TEST(MakeUnmake, OukPlayouts) {
  EXPECT_GT(playouts(Variant::Ouk, Counting::Automatic, Position::OUK_START, 3, 30, 250), 50000);
  playouts(Variant::Ouk, Counting::Declaration, Position::OUK_START, 4, 10, 250);
}

TEST(MakeUnmake, FromListedPositions) {
  playouts(Variant::Makruk, Counting::Automatic, "1mnk4/4r3/1sr1p1MM/MP2p3/2p3P1/2m5/3NKS1R/1R2S1N1 w - - 0 56", 5,
           10, 100);
  playouts(Variant::Makruk, Counting::Automatic, "8/8/6k1/1n6/8/5S2/3K4/8 b - 128 17 61", 6, 10, 100);
  playouts(Variant::Ouk, Counting::Automatic, "rnkm1sr1/2s1n3/ppp1pp1M/8/2p1P1P1/PPPP1P2/4NK2/R1S1MS1R b Ed - 0 15",
           7, 10, 100);
  playouts(Variant::Ouk, Counting::Automatic, "rns1k1nr/2m3s1/pppppppp/8/1P2P3/P1PP1PPP/4S3/RNSKM1NR b DEe - 0 3", 8,
           10, 100);
}

TEST(MakeUnmake, OukRightsFollowTheMoves) {
  Position pos = from_fen(Position::OUK_START, Variant::Ouk);
  ASSERT_FALSE(parse_move(pos, "d1b2").is_none());
  pos.do_move(parse_move(pos, "d1b2"));  // the king's jump spends White's D
  EXPECT_EQ(pos.rights(), WHITE_NEANG_RIGHT | BLACK_NEANG_RIGHT | BLACK_KING_RIGHT);
  EXPECT_EQ(pos.fen(), "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/1K6/RNS1MSNR b Ede - 0 1");
  ASSERT_FALSE(parse_move(pos, "d8c7").is_none());
  pos.do_move(parse_move(pos, "d8c7"));  // the neang's step spends Black's d
  EXPECT_EQ(pos.rights(), WHITE_NEANG_RIGHT | BLACK_KING_RIGHT);
  EXPECT_EQ(pos.key(), pos.compute_key());
  pos.undo_move();
  pos.undo_move();
  EXPECT_EQ(pos.fen(), Position::OUK_START);
  EXPECT_EQ(pos.key(), from_fen(Position::OUK_START, Variant::Ouk).key());
}

}  // namespace
