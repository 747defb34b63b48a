// The endgame count (docs/rules.md §5, §6): start values and limits, the hunter's
// last move, D2–D6, D9 and the declaration-mode actions.
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/game.h"
#include "helpers.h"
#include "core/movegen.h"

using namespace makruk;

using makruk::testing_helpers::Refused;

namespace {

constexpr Variant MAKRUK = Variant::Makruk;
constexpr Variant OUK = Variant::Ouk;
constexpr Counting AUTO = Counting::Automatic;
constexpr Counting DECL = Counting::Declaration;

Game make(Variant v, Counting c, std::string_view fen) {
  std::string err;
  auto g = Game::create(v, c, fen, &err);
  if (!g) {
    ADD_FAILURE() << "FEN refused: '" << fen << "': " << err;
    return *Game::create(v, c, "", nullptr);
  }
  return *g;
}

// Applies each action in turn; fails on the first one refused.
::testing::AssertionResult Play(Game& g, std::initializer_list<std::string_view> actions) {
  for (std::string_view a : actions) {
    std::string err;
    if (!g.apply(a, &err))
      return ::testing::AssertionFailure() << "'" << a << "' refused: " << err << " (fen "
                                           << g.position().fen() << ")";
  }
  return ::testing::AssertionSuccess();
}

std::string describe(const Count& c) {
  if (!c.running()) return "no count";
  return std::string(count_kind_string(c.kind)) + " count of " + (c.side == WHITE ? "White" : "Black") +
         " " + std::to_string(c.n) + "/" + std::to_string(c.limit) + (c.expired ? " (expired)" : "");
}

::testing::AssertionResult HasCount(const Game& g, CountKind kind, Color side, int n, int limit) {
  const Count& c = g.position().count();
  if (c.kind == kind && c.side == side && c.n == n && c.limit == limit)
    return ::testing::AssertionSuccess();
  Count want;
  want.kind = kind;
  want.side = side;
  want.n = uint8_t(n);
  want.limit = uint8_t(limit);
  return ::testing::AssertionFailure() << "expected " << describe(want) << ", got " << describe(c);
}

::testing::AssertionResult HasNoCount(const Game& g) {
  if (!g.position().count().running()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected no count, got " << describe(g.position().count());
}

// Plays one quiet move (no capture) that does not end the game, preferring
// the one whose position has occurred least often. False when there is none.
bool play_fresh_quiet_move(Game& g) {
  std::optional<Game> best;
  for (Move m : g.legal_moves()) {
    if (g.position().piece_on(m.to()) != NO_PIECE) continue;
    Game trial = g;
    if (!trial.play(m, nullptr) || trial.over()) continue;
    if (!best || trial.repetitions() < best->repetitions()) best = trial;
  }
  if (!best) return false;
  g = *best;
  return true;
}

// Plays a quiet move that does not mate (the hunter's last move). False when none.
bool play_last_quiet_move(Game& g) {
  for (Move m : g.legal_moves()) {
    if (g.position().piece_on(m.to()) != NO_PIECE) continue;
    Game trial = g;
    if (!trial.play(m, nullptr) || trial.reason() == Reason::Checkmate) continue;
    g = trial;
    return true;
  }
  return false;
}

// White K+R+R v Black K; Black (the bare king) to move: piece count 4/8 in Makruk.
constexpr std::string_view TWO_ROOKS = "7k/8/8/8/8/8/8/RR2K3 b - - 0 1";
// White K+R+S+N (4) v Black K+N+N (3), pawnless: Black's board count.
constexpr std::string_view BOARD = "4k1n1/8/5S2/n7/8/8/8/R3K2N b - - 0 1";
// White K+N+S+S (4) v Black K+R+N (3): Black's rook can take both khons.
constexpr std::string_view D2_POS = "rn2k3/8/8/S7/8/S6N/8/6K1 b - - 0 1";
// White K+R+R (3) v Black K+N (2): White's rook can take the last knight.
constexpr std::string_view D3_POS = "4k3/8/8/8/8/8/n7/R3K2R b - - 0 1";
// White K+N+S (3) v Black K+R (2): Black's a8a1 mates.
constexpr std::string_view MATE_BY_COUNTER = "r7/8/8/1S2N3/8/6k1/8/7K b - - 0 1";

// ---------------------------------------------------------------------------
// Start values and limits.

TEST(Counting, PieceCount_Makruk_StartsAtPieceNumber) {
  Game g = make(MAKRUK, AUTO, TWO_ROOKS);
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  EXPECT_FALSE(g.position().count().expired);
  EXPECT_FALSE(g.over());
}

TEST(Counting, PieceCount_Ouk_StartsAtPieceNumberPlusOne) {
  Game g = make(OUK, AUTO, TWO_ROOKS);
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
  EXPECT_FALSE(g.over());
}

TEST(Counting, PieceCount_CountsEveryPieceOnTheBoardBothKingsIncluded) {
  // White K+R+S+S+N v Black K: 6 pieces, limit 16 (one rook).
  Game mk = make(MAKRUK, AUTO, "4k3/8/8/8/8/8/8/1NS1KS1R b - - 0 1");
  EXPECT_TRUE(HasCount(mk, CountKind::Piece, BLACK, 6, 16));
  Game ouk = make(OUK, AUTO, "4k3/8/8/8/8/8/8/1NS1KS1R b - - 0 1");
  EXPECT_TRUE(HasCount(ouk, CountKind::Piece, BLACK, 7, 16));
}

TEST(Counting, PieceCount_BareWhiteKingCountsToo) {
  Game g = make(MAKRUK, AUTO, "4k2r/8/8/8/8/8/8/K7 w - - 0 1");
  EXPECT_TRUE(HasCount(g, CountKind::Piece, WHITE, 3, 16));
}

TEST(Counting, BoardCount_Makruk_StartsAtZeroWithLimit64) {
  Game g = make(MAKRUK, AUTO, BOARD);
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
}

TEST(Counting, BoardCount_Makruk_PromotedPawnsDoNotPreventIt) {
  Game g = make(MAKRUK, AUTO, "4k1n1/8/5S2/n7/8/M~7/8/4K2N b - - 0 1");
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
}

TEST(Counting, BoardCount_Makruk_NotWhileAnUnpromotedPawnIsLeft) {
  Game g = make(MAKRUK, AUTO, "4k1n1/8/5S2/n7/8/P7/8/4K2N b - - 0 1");
  EXPECT_TRUE(HasNoCount(g));
}

TEST(Counting, BoardCount_Makruk_NotWhenPieceNumbersAreEqual) {
  Game g = make(MAKRUK, AUTO, "4k1n1/8/8/n7/8/8/8/R3K2N b - - 0 1");
  EXPECT_TRUE(HasNoCount(g));
}

TEST(Counting, BoardCount_Makruk_StartsWhenTheLastPawnLeaves) {
  // White K+R+N v Black K+N+P: no count while Black's pawn stands.
  Game g = make(MAKRUK, AUTO, "4k3/1n6/8/8/p7/8/8/R3K1N1 w - - 0 1");
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"a1a4"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
}

TEST(Counting, BoardCount_Ouk_StartsAtOneWithPawnsOnTheBoard) {
  // White K+R+N+P+P (5) v Black K+N+P (3).
  Game g = make(OUK, AUTO, "1n2k3/8/7p/8/8/1P4P1/8/R3K1N1 b - - 0 1");
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
}

TEST(Counting, BoardCount_Ouk_StartsOnceTheSideHasThreePiecesOrFewer) {
  // Black K+N+P+P (4) v White K+R+N+P+P (5): no count until Black is down to three.
  Game g = make(OUK, AUTO, "1n2k3/8/p6p/8/8/1P4P1/8/R3K1N1 w - - 0 1");
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"a1a6"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
}

TEST(Counting, PieceCount_Makruk_WaitsForTheLastPawnToPromote) {
  Game g = make(MAKRUK, AUTO, "k7/8/8/4P3/8/8/8/4K2R w - - 0 1");
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"e5e6"}));
  // K, R, promoted pawn v K: 4 pieces, limit 16 (one rook).
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 16));
}

// The limit table, smallest that applies (hunter White, bare Black king on e5).
struct LimitCase {
  const char* name;
  const char* fen;
  int pieces;
  int limit;
};

class PieceCountLimit : public ::testing::TestWithParam<LimitCase> {};

TEST_P(PieceCountLimit, SmallestThatApplies) {
  const LimitCase& c = GetParam();
  Game mk = make(MAKRUK, AUTO, c.fen);
  EXPECT_TRUE(HasCount(mk, CountKind::Piece, BLACK, c.pieces, c.limit));
  EXPECT_EQ(piece_count_limit(mk.position(), WHITE), c.limit);
  Game ouk = make(OUK, AUTO, c.fen);
  EXPECT_TRUE(HasCount(ouk, CountKind::Piece, BLACK, c.pieces + 1, c.limit));
}

INSTANTIATE_TEST_SUITE_P(
    Counting, PieceCountLimit,
    ::testing::Values(
        LimitCase{"TwoRooks8", "8/8/8/4k3/8/8/8/RR2K3 b - - 0 1", 4, 8},
        LimitCase{"TwoRooksAndTwoKhons8", "8/8/8/4k3/8/8/8/RRS1KS2 b - - 0 1", 6, 8},
        LimitCase{"OneRook16", "8/8/8/4k3/8/8/8/R3K3 b - - 0 1", 3, 16},
        LimitCase{"OneRookTwoKhonsTwoKnights16", "8/8/8/4k3/8/8/8/RNS1KSN1 b - - 0 1", 7, 16},
        LimitCase{"TwoKhons22", "8/8/8/4k3/8/8/8/2S1KS2 b - - 0 1", 4, 22},
        LimitCase{"TwoKhonsTwoKnights22", "8/8/8/4k3/8/8/8/1NS1KSN1 b - - 0 1", 6, 22},
        LimitCase{"TwoKnights32", "8/8/8/4k3/8/8/8/1N2K1N1 b - - 0 1", 4, 32},
        LimitCase{"OneKhonTwoKnights32", "8/8/8/4k3/8/8/8/1NS1K1N1 b - - 0 1", 5, 32},
        LimitCase{"OneKhon44", "8/8/8/4k3/8/8/8/2S1K3 b - - 0 1", 3, 44},
        LimitCase{"OneKhonOneKnightAndMet44", "8/8/8/4k3/8/8/8/1NS1KM2 b - - 0 1", 5, 44},
        LimitCase{"OneKnight64", "8/8/8/4k3/8/8/8/1N2K3 b - - 0 1", 3, 64},
        LimitCase{"MetMoversOnly64", "8/8/8/4k3/8/8/2M~5/2M1K3 b - - 0 1", 4, 64},
        LimitCase{"OneKnightAndMet64", "8/8/8/4k3/8/8/8/1N2KM2 b - - 0 1", 4, 64}),
    [](const ::testing::TestParamInfo<LimitCase>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// §6 worked checks and the hunter's last move.

TEST(Counting, WorkedCheck_TwoRooks_BareKingCountsFiveToEightThenHunterHasOneLastMove) {
  Game g = make(MAKRUK, AUTO, "8/8/8/4k3/8/8/8/RR2K3 b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  int hunterMoves = 0;
  const char* black[] = {"e5d5", "d5c5", "c5c6", "c6d6"};
  const char* white[] = {"a1a2", "a2a3", "a3a4", "a4a5"};
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(Play(g, {black[i]}));
    EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5 + i, 8)) << "after " << black[i];
    EXPECT_FALSE(g.over()) << "after " << black[i];
    if (i == 3) {
      // 8/8 shown; the hunter still has its last move.
      EXPECT_FALSE(g.position().count().expired);
      EXPECT_GT(g.legal_moves().size, 0);
    }
    ASSERT_TRUE(Play(g, {white[i]}));
    ++hunterMoves;
    if (i < 3) {
      EXPECT_FALSE(g.over()) << "after " << white[i];
      EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5 + i, 8)) << "after " << white[i];
    }
  }
  EXPECT_EQ(hunterMoves, 4);
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 8, 8));
  EXPECT_TRUE(g.position().count().expired);
  EXPECT_EQ(g.legal_moves().size, 0);
  EXPECT_TRUE(Refused(g, "e1e2"));
}

TEST(Counting, LastMove_HunterMateOnItsLastMoveWins) {
  // White K+R+R+S+S+N v Black K: 7 pieces, limit 8. Black's only move makes 8/8.
  Game g = make(MAKRUK, AUTO, "7k/8/8/8/1S1S4/1NK5/6R1/R7 b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 7, 8));
  ASSERT_TRUE(Play(g, {"h8h7"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 8, 8));
  EXPECT_FALSE(g.over());
  ASSERT_TRUE(Play(g, {"a1h1"}));
  EXPECT_EQ(g.result(), Result::WhiteWins);
  EXPECT_EQ(g.reason(), Reason::Checkmate);
}

TEST(Counting, LastMove_AnythingButMateDraws) {
  Game g = make(MAKRUK, AUTO, "7k/8/8/8/1S1S4/1NK5/6R1/R7 b - - 0 1");
  ASSERT_TRUE(Play(g, {"h8h7", "a1a7"}));  // a check, not a mate
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
}

TEST(Counting, PlayOn_PastAnExpiredCountTheGameGoesOn) {
  // A record that goes on where the count was claimed late (Game::play_on, for analysis).
  Game g = make(MAKRUK, AUTO, "7k/8/8/8/1S1S4/1NK5/6R1/R7 b - - 0 1");
  ASSERT_TRUE(Play(g, {"h8h7", "a1a7"}));
  ASSERT_EQ(g.reason(), Reason::CountExpired);
  ASSERT_TRUE(g.play_on());
  ASSERT_TRUE(Play(g, {"h7h8", "a7a6", "h8h7", "a6a5"}));
  EXPECT_FALSE(g.over());
  EXPECT_TRUE(g.position().count().expired);  // the count stays where it ran out
  EXPECT_EQ(g.ended()->ply, 2);
  EXPECT_EQ(g.ended()->reason, Reason::CountExpired);
}

TEST(Counting, WorkedCheck_MakrukBoardCount_HunterGets64Moves) {
  // White K+R+N v Black K+N, pawnless: Black's board count from 0.
  Game g = make(MAKRUK, AUTO, "4k3/8/8/8/3n4/8/8/R3K1N1 b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  int hunterMoves = 0;
  for (int i = 1; i <= 64; ++i) {
    ASSERT_TRUE(play_fresh_quiet_move(g)) << "no quiet Black move " << i << " in " << g.position().fen();
    ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, i, 64)) << "Black move " << i;
    ASSERT_FALSE(g.over()) << "Black move " << i;
    if (i < 64) {
      ASSERT_TRUE(play_fresh_quiet_move(g)) << "no quiet White move " << i;
      ++hunterMoves;
      ASSERT_FALSE(g.over()) << "White move " << i;
      ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, i, 64)) << "White move " << i;
    }
  }
  EXPECT_FALSE(g.position().count().expired);
  ASSERT_TRUE(play_last_quiet_move(g));
  ++hunterMoves;
  EXPECT_EQ(hunterMoves, 64);
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 64, 64));
}

TEST(Counting, WorkedCheck_OukBoardCount_HunterGets63Moves) {
  Game g = make(OUK, AUTO, "4k3/8/8/8/3n4/8/8/R3K1N1 b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  int hunterMoves = 0;
  for (int i = 2; i <= 64; ++i) {
    ASSERT_TRUE(play_fresh_quiet_move(g)) << "Black move to " << i;
    ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, i, 64));
    ASSERT_FALSE(g.over());
    if (i < 64) {
      ASSERT_TRUE(play_fresh_quiet_move(g)) << "White move after " << i;
      ++hunterMoves;
      ASSERT_FALSE(g.over());
    }
  }
  ASSERT_TRUE(play_last_quiet_move(g));
  ++hunterMoves;
  EXPECT_EQ(hunterMoves, 63);
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
}

TEST(Counting, StartAtLimit_NinePiecesWithTwoRooksDrawsAtOnce) {
  // §6: K+2R+2S+2N+M v K, 9 pieces, limit 8.
  Game g = make(MAKRUK, AUTO, "8/8/8/4k3/8/8/8/RNSKMSNR b - - 0 1");
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 9, 8));
  EXPECT_EQ(g.legal_moves().size, 0);
  EXPECT_TRUE(Refused(g, "e5d5"));
}

TEST(Counting, StartAtLimit_ExactlyAtTheLimitDrawsAtOnce) {
  // K+2R+2S+2N v K: 8 pieces, limit 8.
  Game g = make(MAKRUK, AUTO, "8/8/8/4k3/8/8/8/RNSK1SNR b - - 0 1");
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
}

TEST(Counting, StartAtLimit_OukPlusOneReachesTheLimitWhereMakrukDoesNot) {
  // K+2R+2S+N v K: 7 pieces. Makruk 7/8 plays on; Ouk 8/8 draws at once.
  Game mk = make(MAKRUK, AUTO, "8/8/8/4k3/8/8/8/RNSK1S1R b - - 0 1");
  EXPECT_FALSE(mk.over());
  EXPECT_TRUE(HasCount(mk, CountKind::Piece, BLACK, 7, 8));
  Game ouk = make(OUK, AUTO, "8/8/8/4k3/8/8/8/RNSK1S1R b - - 0 1");
  EXPECT_EQ(ouk.result(), Result::Draw);
  EXPECT_EQ(ouk.reason(), Reason::CountExpired);
}

TEST(Counting, StartAtLimit_D3SwitchAtTheLimitDrawsAtOnce) {
  // Black K+M v White K+2R+2S+2N: board count; taking the met leaves 8 pieces, limit 8.
  Game g = make(MAKRUK, AUTO, "8/8/8/4k3/m7/8/8/RNSK1SNR w - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"a1a4"}));
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
}

// ---------------------------------------------------------------------------
// Which moves count; captures.

TEST(Counting, OnlyTheCountingSidesMovesAddOne) {
  Game g = make(MAKRUK, AUTO, BOARD);
  ASSERT_TRUE(Play(g, {"e8d8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"e1e2"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"d8e8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 2, 64));
}

TEST(Counting, HuntersCaptureDoesNotResetTheCount) {
  Game g = make(MAKRUK, AUTO, BOARD);
  ASSERT_TRUE(Play(g, {"e8d8", "a1a5"}));  // White takes a knight: 4 v 2
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"d8e8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 2, 64));
}

TEST(Counting, D2_EqualIsNotMore_CountingSidesCaptureKeepsTheCountRunning) {
  Game g = make(MAKRUK, AUTO, BOARD);
  ASSERT_TRUE(Play(g, {"g8f6"}));  // Black takes the khon: 3 v 3
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"e1e2", "e8d8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 2, 64));
}

TEST(Counting, D2_BoardCountStopsWhenCountingSideHasMorePieces) {
  Game g = make(MAKRUK, AUTO, D2_POS);
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"a8a5"}));  // 3 v 3
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"g1g2", "a5a3"}));  // 3 v 2: Black's count stops
  // Automatic: White (K+N v K+R+N, pawnless) now qualifies and counts from 0.
  EXPECT_TRUE(HasCount(g, CountKind::Board, WHITE, 0, 64));
  ASSERT_TRUE(Play(g, {"g2g1"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, WHITE, 1, 64));
}

TEST(Counting, D2_Automatic_OtherSidesPieceCountStartsWhenItIsABareKing) {
  // White K+S+S v Black K+R: Black's board count; Black takes both khons.
  Game g = make(MAKRUK, AUTO, "r3k3/8/8/S7/8/S7/8/6K1 b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"a8a5", "g1g2", "a5a3"}));
  // White is a bare king: 3 pieces, limit 16 (Black's one rook).
  EXPECT_TRUE(HasCount(g, CountKind::Piece, WHITE, 3, 16));
}

TEST(Counting, D3_BoardCountBecomesPieceCountWhenCountingSideIsBareKing_Makruk) {
  Game g = make(MAKRUK, AUTO, D3_POS);
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"e8d8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"a1a2"}));  // the last knight goes: K+R+R v K, P = 4
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  ASSERT_TRUE(Play(g, {"d8e8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
}

TEST(Counting, D3_BoardCountBecomesPieceCountFromPPlusOne_Ouk) {
  Game g = make(OUK, AUTO, D3_POS);
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"e8d8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 2, 64));
  ASSERT_TRUE(Play(g, {"a1a2"}));  // P + 1 = 5
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
}

TEST(Counting, D3_OukBareKingsBoardCountSwitchesWhenTheLastPawnPromotes) {
  // Ouk, Black bare king v K+R+P: a board count while the pawn stands.
  Game g = make(OUK, AUTO, "k7/8/8/4P3/8/8/8/4K2R w - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"e5e6"}));  // no unpromoted pawn left: P = 4
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 16));
}

TEST(Counting, D3_OukBareKingsBoardCountSwitchesWhenItTakesTheLastPawn) {
  Game g = make(OUK, AUTO, "8/8/8/8/3k4/4P3/8/4K2R b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"d4e3"}));  // K+R v K: P = 3
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 16));
}

TEST(Counting, D4_PieceCountKeepsNAndLimitWhenTheHunterLosesAPiece) {
  Game g = make(MAKRUK, AUTO, "6k1/7R/8/8/8/8/8/R3K3 b - - 0 1");
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  ASSERT_TRUE(Play(g, {"g8h7"}));  // takes a rook: one rook would give 16, P would be 3
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
  ASSERT_TRUE(Play(g, {"e1e2", "h7g6"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 6, 8));
}

TEST(Counting, Automatic_CountingSidesMateWins) {
  Game g = make(MAKRUK, AUTO, MATE_BY_COUNTER);
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"a8a1"}));
  EXPECT_EQ(g.result(), Result::BlackWins);
  EXPECT_EQ(g.reason(), Reason::Checkmate);
}

// ---------------------------------------------------------------------------
// Declaration mode.

TEST(Counting, Declaration_NothingStartsByItself) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"h8h7", "e1e2"}));
  EXPECT_TRUE(HasNoCount(g));
  Game board = make(MAKRUK, DECL, BOARD);
  EXPECT_TRUE(HasNoCount(board));
}

TEST(Counting, Declaration_LoneKingStartsAPieceCount) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  EXPECT_EQ(g.record(), std::vector<std::string>{"count:b"});
  ASSERT_TRUE(Play(g, {"h8h7"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
}

TEST(Counting, Declaration_OukLoneKingStartsAtPPlusOne) {
  Game g = make(OUK, DECL, TWO_ROOKS);
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
}

TEST(Counting, Declaration_BoardCountStartsFromZero) {
  Game g = make(MAKRUK, DECL, BOARD);
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"e8d8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
}

TEST(Counting, D5_StartAndStopOnTheOpponentsTurnUseNoTurn) {
  Game g = make(MAKRUK, DECL, "7k/8/8/8/8/8/8/RR2K3 w - - 0 1");
  ASSERT_TRUE(Play(g, {"count:b"}));  // White to move
  EXPECT_EQ(g.position().side_to_move(), WHITE);
  EXPECT_EQ(g.plies(), 0);
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  ASSERT_TRUE(Play(g, {"a1a2"}));  // the hunter's move adds nothing
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  ASSERT_TRUE(Play(g, {"h8g8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
  ASSERT_TRUE(Play(g, {"stop:b"}));  // White to move again
  EXPECT_EQ(g.position().side_to_move(), WHITE);
  EXPECT_EQ(g.plies(), 2);
  EXPECT_TRUE(HasNoCount(g));
  EXPECT_EQ(g.record(), (std::vector<std::string>{"count:b", "a1a2", "h8g8", "stop:b"}));
}

TEST(Counting, D5_StartAndStopOnOwnTurnUseNoTurn) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  ASSERT_TRUE(Play(g, {"count:b", "stop:b", "count:b"}));
  EXPECT_EQ(g.position().side_to_move(), BLACK);
  EXPECT_EQ(g.plies(), 0);
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
}

TEST(Counting, Declaration_StartingAgainAfterStoppingCountsAfresh_Board) {
  Game g = make(MAKRUK, DECL, BOARD);
  ASSERT_TRUE(Play(g, {"count:b", "e8d8", "e1e2", "d8e8"}));
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 2, 64));
  ASSERT_TRUE(Play(g, {"stop:b"}));
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"e2e1", "e8d8"}));
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
}

TEST(Counting, Declaration_StartingAgainAfterStoppingCountsAfresh_Piece) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  ASSERT_TRUE(Play(g, {"count:b", "h8h7", "e1e2", "h7h8"}));
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 6, 8));
  ASSERT_TRUE(Play(g, {"stop:b", "count:b"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
}

TEST(Counting, Declaration_CountStartingBeyondItsLimitDrawsAtOnce) {
  Game g = make(MAKRUK, DECL, "8/8/8/4k3/8/8/8/RNSKMSNR b - - 0 1");
  EXPECT_FALSE(g.over());
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountExpired);
}

TEST(Counting, Declaration_D3_DeclaredBoardCountSwitchesByItself) {
  Game g = make(MAKRUK, DECL, D3_POS);
  ASSERT_TRUE(Play(g, {"count:b", "e8d8"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"a1a2"}));
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
}

TEST(Counting, Declaration_D2_StopsTheDeclaredBoardCount_D6_NothingStartsForTheOtherSide) {
  Game g = make(MAKRUK, DECL, D2_POS);
  ASSERT_TRUE(Play(g, {"count:b", "a8a5"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, BLACK, 1, 64));
  ASSERT_TRUE(Play(g, {"g1g2", "a5a3"}));  // 3 v 2
  EXPECT_TRUE(HasNoCount(g));
  ASSERT_TRUE(Play(g, {"g2g1", "e8d8"}));
  EXPECT_TRUE(HasNoCount(g));
  // White qualifies and may declare.
  ASSERT_TRUE(Play(g, {"count:w"}));
  EXPECT_TRUE(HasCount(g, CountKind::Board, WHITE, 0, 64));
}

TEST(Counting, D9_CountingSideMatesWhileItsDeclaredCountRuns_Draw) {
  Game g = make(MAKRUK, DECL, MATE_BY_COUNTER);
  ASSERT_TRUE(Play(g, {"count:b"}));
  ASSERT_TRUE(HasCount(g, CountKind::Board, BLACK, 0, 64));
  ASSERT_TRUE(Play(g, {"a8a1"}));
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::CountMate);
  EXPECT_EQ(g.legal_moves().size, 0);
}

TEST(Counting, D9_StoppingTheCountFirstLetsTheMateWin) {
  Game g = make(MAKRUK, DECL, MATE_BY_COUNTER);
  ASSERT_TRUE(Play(g, {"count:b", "stop:b", "a8a1"}));
  EXPECT_EQ(g.result(), Result::BlackWins);
  EXPECT_EQ(g.reason(), Reason::Checkmate);
}

TEST(Counting, D9_MateWithoutADeclaredCountWins) {
  Game g = make(MAKRUK, DECL, MATE_BY_COUNTER);
  ASSERT_TRUE(Play(g, {"a8a1"}));
  EXPECT_EQ(g.result(), Result::BlackWins);
  EXPECT_EQ(g.reason(), Reason::Checkmate);
}

TEST(Counting, D9_HuntersMateWinsWhileTheDeclaredCountRuns) {
  // White K+R v Black K... Black counts; White's Ra1-a8 mates (Kg6 covers the 7th rank).
  Game g = make(MAKRUK, DECL, "6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
  ASSERT_TRUE(Play(g, {"count:b"}));
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 3, 16));
  ASSERT_TRUE(Play(g, {"a1a8"}));
  EXPECT_EQ(g.result(), Result::WhiteWins);
  EXPECT_EQ(g.reason(), Reason::Checkmate);
}

// ---------------------------------------------------------------------------
// Refusals: each returns false with an error and changes nothing.

TEST(Counting, Refused_CountWhenTheSideDoesNotQualify) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  EXPECT_TRUE(Refused(g, "count:w"));  // White has more pieces
  Game board = make(MAKRUK, DECL, "4k1n1/8/5S2/n7/8/P7/8/4K2N b - - 0 1");
  EXPECT_TRUE(Refused(board, "count:b"));  // an unpromoted pawn is left
  Game equal = make(MAKRUK, DECL, "4k1n1/8/8/n7/8/8/8/R3K2N b - - 0 1");
  EXPECT_TRUE(Refused(equal, "count:b"));
  EXPECT_TRUE(Refused(equal, "count:w"));
}

TEST(Counting, Refused_StopWhenTheSideIsNotCounting) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  EXPECT_TRUE(Refused(g, "stop:w"));
  EXPECT_TRUE(Refused(g, "stop:b"));
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_TRUE(Refused(g, "stop:w"));  // Black counts, not White
  EXPECT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
}

TEST(Counting, Refused_CountWhileAlreadyCounting) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  ASSERT_TRUE(Play(g, {"count:b", "h8h7", "e1e2"}));
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 5, 8));
  EXPECT_TRUE(Refused(g, "count:b"));
  EXPECT_TRUE(Refused(g, "count:w"));
}

TEST(Counting, Refused_CountAndStopInAutomaticMode) {
  Game g = make(MAKRUK, AUTO, TWO_ROOKS);
  ASSERT_TRUE(HasCount(g, CountKind::Piece, BLACK, 4, 8));
  EXPECT_TRUE(Refused(g, "stop:b"));
  EXPECT_TRUE(Refused(g, "count:b"));
  EXPECT_TRUE(Refused(g, "count:w"));
  Game board = make(MAKRUK, AUTO, "4k1n1/8/8/n7/8/8/8/R3K2N b - - 0 1");
  EXPECT_TRUE(Refused(board, "count:b"));
}

TEST(Counting, Refused_EveryActionAfterTheGameEnded) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  ASSERT_TRUE(Play(g, {"count:b", "resign:b"}));
  ASSERT_EQ(g.result(), Result::WhiteWins);
  for (std::string_view a : {"count:b", "stop:b", "count:w", "stop:w", "claim:w", "resign:w", "resign:b", "h8h7"})
    EXPECT_TRUE(Refused(g, a)) << a;
}

TEST(Counting, Refused_EveryActionAfterTheCountRanOut) {
  Game g = make(MAKRUK, AUTO, "8/8/8/4k3/8/8/8/RNSKMSNR b - - 0 1");
  ASSERT_EQ(g.reason(), Reason::CountExpired);
  for (std::string_view a : {"count:b", "stop:b", "claim:b", "resign:b", "e5d5"})
    EXPECT_TRUE(Refused(g, a)) << a;
}

TEST(Counting, Refused_MalformedCountAction) {
  Game g = make(MAKRUK, DECL, TWO_ROOKS);
  EXPECT_TRUE(Refused(g, "count:x"));
  EXPECT_TRUE(Refused(g, "count:"));
}

}  // namespace
