// How a game ends (docs/rules.md §4), the Ouk first moves with D1 (§3), automatic
// promotion, moves after the end, and the Zobrist keys with and without the count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/game.h"
#include "helpers.h"
#include "core/movegen.h"
#include "core/notation.h"

using namespace makruk;

using makruk::testing_helpers::Refused;

namespace {

constexpr Variant MAKRUK = Variant::Makruk;
constexpr Variant OUK = Variant::Ouk;
constexpr Counting AUTO = Counting::Automatic;
constexpr Counting DECL = Counting::Declaration;

Game make(Variant v, std::string_view fen, Counting c = AUTO) {
  std::string err;
  auto g = Game::create(v, c, fen, &err);
  if (!g) {
    ADD_FAILURE() << "FEN refused: '" << fen << "': " << err;
    return *Game::create(v, c, "", nullptr);
  }
  return *g;
}

::testing::AssertionResult Play(Game& g, const std::vector<std::string_view>& actions) {
  for (std::string_view a : actions) {
    std::string err;
    if (!g.apply(a, &err))
      return ::testing::AssertionFailure() << "'" << a << "' refused: " << err << " (fen "
                                           << g.position().fen() << ")";
  }
  return ::testing::AssertionSuccess();
}

std::vector<std::string> legal(const Game& g) {
  std::vector<std::string> out;
  for (Move m : g.legal_moves()) out.push_back(move_to_string(m));
  std::sort(out.begin(), out.end());
  return out;
}

bool has_move(const Game& g, std::string_view move) {
  auto l = legal(g);
  return std::find(l.begin(), l.end(), move) != l.end();
}

// The third FEN field (Ouk first-move rights).
std::string rights_field(const Game& g) {
  std::string fen = g.position().fen();
  size_t a = fen.find(' ');
  a = fen.find(' ', a + 1);
  size_t b = fen.find(' ', a + 1);
  return fen.substr(a + 1, b - a - 1);
}

void expect_end(const Game& g, Result r, Reason why) {
  EXPECT_EQ(g.result(), r) << g.position().fen();
  EXPECT_EQ(g.reason(), why) << g.position().fen();
  EXPECT_TRUE(g.over());
  EXPECT_EQ(g.legal_moves().size, 0);
}

// ---------------------------------------------------------------------------
// §4 endings.

TEST(Rules, Checkmate_WinsForTheMatingSide) {
  for (Variant v : {MAKRUK, OUK}) {
    Game g = make(v, "6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
    ASSERT_TRUE(Play(g, {"a1a8"}));
    expect_end(g, Result::WhiteWins, Reason::Checkmate);
  }
}

TEST(Rules, Checkmate_BlackMates) {
  Game g = make(MAKRUK, "r7/8/8/8/8/6k1/8/7K b - - 0 1");
  ASSERT_TRUE(Play(g, {"a8a1"}));
  expect_end(g, Result::BlackWins, Reason::Checkmate);
}

TEST(Rules, Checkmate_LoadedMatedPositionIsOverAtOnce) {
  Game g = make(MAKRUK, "R5k1/8/6K1/8/8/8/8/8 b - - 0 1");
  expect_end(g, Result::WhiteWins, Reason::Checkmate);
}

TEST(Rules, Checkmate_CheckWithAnEscapeIsNotMate) {
  Game g = make(MAKRUK, "6k1/8/5K2/8/8/8/8/R7 w - - 0 1");
  ASSERT_TRUE(Play(g, {"a1a8"}));  // h7 is free
  EXPECT_FALSE(g.over());
  EXPECT_TRUE(g.position().in_check());
  EXPECT_EQ(legal(g), std::vector<std::string>{"g8h7"});
}

TEST(Rules, Resignation_ByTheSideToMove) {
  Game g = make(MAKRUK, "");
  ASSERT_TRUE(Play(g, {"resign:w"}));
  EXPECT_EQ(g.result(), Result::BlackWins);
  EXPECT_EQ(g.reason(), Reason::Resignation);
  EXPECT_EQ(g.record(), std::vector<std::string>{"resign:w"});
}

TEST(Rules, Resignation_OnTheOpponentsTurn) {
  Game g = make(OUK, "");
  ASSERT_TRUE(Play(g, {"resign:b"}));  // White to move
  EXPECT_EQ(g.result(), Result::WhiteWins);
  EXPECT_EQ(g.reason(), Reason::Resignation);
  Game h = make(MAKRUK, "");
  ASSERT_TRUE(Play(h, {"e3e4", "resign:w"}));  // Black to move
  EXPECT_EQ(h.result(), Result::BlackWins);
  EXPECT_EQ(h.reason(), Reason::Resignation);
}

TEST(Rules, Resignation_RefusedOnceTheGameIsOver) {
  Game g = make(MAKRUK, "");
  ASSERT_TRUE(Play(g, {"resign:b"}));
  EXPECT_TRUE(Refused(g, "resign:w"));
  EXPECT_TRUE(Refused(g, "resign:b"));
  EXPECT_EQ(g.result(), Result::WhiteWins);
}

TEST(Rules, DrawOffer_AcceptedDrawsByAgreement) {
  Game g = make(MAKRUK, "");
  ASSERT_TRUE(Play(g, {"e3e4", "offer:b"}));  // Black offers on its own turn
  EXPECT_EQ(g.draw_offer(), BLACK);
  EXPECT_TRUE(Refused(g, "accept:b"));  // not one's own offer
  EXPECT_TRUE(Refused(g, "offer:w"));   // White answers it instead
  ASSERT_TRUE(Play(g, {"e6e5"}));       // moving keeps one's own offer standing
  EXPECT_EQ(g.draw_offer(), BLACK);
  ASSERT_TRUE(Play(g, {"accept:w"}));
  expect_end(g, Result::Draw, Reason::Agreement);
  EXPECT_FALSE(g.draw_offer());
  EXPECT_EQ(reason_string(g.reason()), "agreement");
  EXPECT_EQ(g.record(), (std::vector<std::string>{"e3e4", "offer:b", "e6e5", "accept:w"}));
}

// docs/rules.md §7 writes both as draw:w / draw:b: an offer, or the other side's accepted.
TEST(Rules, DrawOffer_TheRulesSpellingOffersOrAccepts) {
  Game g = make(MAKRUK, "");
  ASSERT_TRUE(Play(g, {"draw:w"}));
  EXPECT_EQ(g.draw_offer(), WHITE);
  EXPECT_TRUE(Refused(g, "draw:w"));  // a second offer while the first stands
  ASSERT_TRUE(Play(g, {"draw:b"}));
  expect_end(g, Result::Draw, Reason::Agreement);
  EXPECT_EQ(g.record(), (std::vector<std::string>{"offer:w", "accept:b"}));  // written the canonical way
}

TEST(Rules, DrawOffer_DeclinedOrAnsweredByAMove) {
  Game g = make(OUK, "");
  ASSERT_TRUE(Play(g, {"offer:w"}));
  EXPECT_TRUE(Refused(g, "offer:w"));   // already offered
  ASSERT_TRUE(Play(g, {"decline:b"}));
  EXPECT_FALSE(g.draw_offer());
  EXPECT_TRUE(Refused(g, "decline:b"));  // nothing left to decline
  EXPECT_TRUE(Refused(g, "offer:w"));    // once per move of one's own
  ASSERT_TRUE(Play(g, {"e3e4", "offer:w"}));
  ASSERT_TRUE(Play(g, {"e6e5"}));  // Black moves: the offer lapses
  EXPECT_FALSE(g.draw_offer());
  EXPECT_TRUE(Refused(g, "accept:b"));
  EXPECT_FALSE(g.over());
  // Replaying the record gives the same state; an ended game takes no offer.
  Game h = make(OUK, "");
  for (const std::string& a : g.record()) ASSERT_TRUE(Play(h, {a})) << a;
  EXPECT_EQ(h.record(), g.record());
  ASSERT_TRUE(Play(h, {"resign:b"}));
  EXPECT_TRUE(Refused(h, "offer:w"));
}

TEST(Rules, Stalemate_Draws) {
  Game g = make(MAKRUK, "7k/5K2/8/5M2/8/8/8/8 w - - 0 1");
  ASSERT_TRUE(Play(g, {"f5g6"}));
  EXPECT_FALSE(g.position().in_check());
  expect_end(g, Result::Draw, Reason::Stalemate);
}

TEST(Rules, BareKings_DrawAtOnceAfterACapture) {
  for (Variant v : {MAKRUK, OUK}) {
    Game g = make(v, "6k1/7R/8/8/8/8/8/4K3 b - - 0 1");
    ASSERT_TRUE(Play(g, {"g8h7"}));
    expect_end(g, Result::Draw, Reason::BareKings);
  }
}

TEST(Rules, BareKings_LoadedPositionDrawsAtOnce) {
  Game g = make(MAKRUK, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
  expect_end(g, Result::Draw, Reason::BareKings);
}

// A record read for analysis may go on past the end our rules give the game
// (Game::play_on): the end is kept, the moves go on, only a mate or stalemate ends it.
TEST(Rules, PlayOn_PastBareKingsTheEndIsKeptAndTheKingsMoveOn) {
  Game g = make(MAKRUK, "8/8/4k3/4M3/8/8/8/4K3 b - - 0 1");
  ASSERT_TRUE(Play(g, {"e6e5"}));
  expect_end(g, Result::Draw, Reason::BareKings);
  EXPECT_TRUE(Refused(g, "e1e2"));
  ASSERT_TRUE(g.play_on());
  EXPECT_FALSE(g.over());
  ASSERT_TRUE(g.ended());
  EXPECT_EQ(g.ended()->ply, 1);
  EXPECT_EQ(g.ended()->result, Result::Draw);
  EXPECT_EQ(g.ended()->reason, Reason::BareKings);
  ASSERT_TRUE(Play(g, {"e1e2", "e5d4", "e2d2"}));
  EXPECT_FALSE(g.over());  // bare kings again and again: it goes on
  EXPECT_GT(g.legal_moves().size, 0);
  EXPECT_EQ(g.plies(), 4);
  EXPECT_FALSE(g.play_on());  // not over
  EXPECT_EQ(g.ended()->ply, 1);
}

TEST(Rules, PlayOn_AfterAResignationAMateStillEndsTheGame) {
  Game g = make(MAKRUK, "k7/8/1K6/8/8/8/8/7R w - - 0 1");
  ASSERT_TRUE(Play(g, {"resign:b"}));
  expect_end(g, Result::WhiteWins, Reason::Resignation);
  ASSERT_TRUE(g.play_on());
  ASSERT_TRUE(Play(g, {"h1h8"}));
  expect_end(g, Result::WhiteWins, Reason::Checkmate);
  EXPECT_EQ(g.ended()->ply, 0);
  EXPECT_EQ(g.ended()->reason, Reason::Resignation);
  EXPECT_FALSE(g.play_on());  // mated: no move is left, and it played on once already
}

TEST(Rules, PlayOn_RefusedWhileTheGameRunsOrNoMoveIsLeft) {
  Game running = make(MAKRUK, "");
  EXPECT_FALSE(running.play_on());
  EXPECT_FALSE(running.ended());
  Game mated = make(MAKRUK, "k7/8/1K6/8/8/8/8/7R w - - 0 1");
  ASSERT_TRUE(Play(mated, {"h1h8"}));
  EXPECT_FALSE(mated.play_on());
  expect_end(mated, Result::WhiteWins, Reason::Checkmate);
  EXPECT_FALSE(mated.ended());
}

// Makruk: b1d2 b8d7 d2b1 d7b8 returns to the start.
const std::vector<std::string_view> KNIGHT_SHUFFLE = {"b1d2", "b8d7", "d2b1", "d7b8"};

TEST(Rules, MakrukRepetition_ThirdOccurrenceDrawsAtOnce) {
  Game g = make(MAKRUK, "");
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  EXPECT_EQ(g.repetitions(), 2);
  ASSERT_TRUE(Play(g, {"b1d2", "b8d7", "d2b1"}));
  EXPECT_FALSE(g.over());
  EXPECT_EQ(g.repetitions(), 2);
  ASSERT_TRUE(Play(g, {"d7b8"}));
  EXPECT_EQ(g.repetitions(), 3);
  expect_end(g, Result::Draw, Reason::Repetition);
}

TEST(Rules, MakrukRepetition_SideToMoveIsPartOfThePosition) {
  // White triangulates: the start placement comes back with Black to move.
  Game g = make(MAKRUK, "4k2r/8/8/8/8/8/8/R3K3 w - - 0 1");
  ASSERT_TRUE(Play(g, {"e1e2", "e8e7", "e2d2", "e7e8", "d2e1"}));
  EXPECT_EQ(g.position().fen().substr(0, 27), "4k2r/8/8/8/8/8/8/R3K3 b - -");
  EXPECT_EQ(g.repetitions(), 1);
  ASSERT_TRUE(Play(g, {"e8d8", "e1d1", "d8e8", "d1e1"}));
  // The placement has now stood three times, but only twice with Black to move.
  EXPECT_EQ(g.repetitions(), 2);
  EXPECT_FALSE(g.over());
  ASSERT_TRUE(Play(g, {"e8d8", "e1d1", "d8e8", "d1e1"}));
  EXPECT_EQ(g.repetitions(), 3);
  expect_end(g, Result::Draw, Reason::Repetition);
}

TEST(Rules, MakrukRepetition_ClaimIsRefused) {
  Game g = make(MAKRUK, "");
  EXPECT_TRUE(Refused(g, "claim:w"));
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  ASSERT_TRUE(Play(g, {"b1d2", "b8d7", "d2b1"}));
  EXPECT_TRUE(Refused(g, "claim:w"));
  EXPECT_TRUE(Refused(g, "claim:b"));
}

TEST(Rules, OukRepetition_ThirdOccurrenceDoesNotEndTheGameByItself) {
  Game g = make(OUK, "");
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  EXPECT_EQ(g.repetitions(), 3);
  EXPECT_FALSE(g.over());
  EXPECT_EQ(g.result(), Result::Ongoing);
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  EXPECT_EQ(g.repetitions(), 4);
  EXPECT_FALSE(g.over());
}

TEST(Rules, OukRepetition_EitherPlayerMayClaimTheThirdOccurrence) {
  Game g = make(OUK, "");
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  Game w = g;
  ASSERT_TRUE(Play(w, {"claim:w"}));
  EXPECT_EQ(w.result(), Result::Draw);
  EXPECT_EQ(w.reason(), Reason::Repetition);
  EXPECT_EQ(w.record().back(), "claim:w");
  ASSERT_TRUE(Play(g, {"claim:b"}));  // on White's turn
  EXPECT_EQ(g.result(), Result::Draw);
  EXPECT_EQ(g.reason(), Reason::Repetition);
  EXPECT_TRUE(Refused(g, "claim:w"));
}

TEST(Rules, OukRepetition_ClaimRefusedBeforeTheThirdOccurrence) {
  Game g = make(OUK, "");
  EXPECT_TRUE(Refused(g, "claim:w"));
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  ASSERT_EQ(g.repetitions(), 2);
  EXPECT_TRUE(Refused(g, "claim:w"));
  EXPECT_TRUE(Refused(g, "claim:b"));
  ASSERT_TRUE(Play(g, {"b1d2", "b8d7", "d2b1"}));
  EXPECT_TRUE(Refused(g, "claim:b"));
}

TEST(Rules, OukRepetition_ClaimRefusedOnceThePositionHasChanged) {
  Game g = make(OUK, "");
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  ASSERT_TRUE(Play(g, KNIGHT_SHUFFLE));
  ASSERT_EQ(g.repetitions(), 3);
  ASSERT_TRUE(Play(g, {"c3c4"}));
  EXPECT_EQ(g.repetitions(), 1);
  EXPECT_TRUE(Refused(g, "claim:b"));
  EXPECT_TRUE(Refused(g, "claim:w"));
}

TEST(Rules, OukRepetition_FirstMoveRightsArePartOfThePosition) {
  Game g = make(OUK, "");
  ASSERT_TRUE(Play(g, {"d1d2", "b8d7", "d2d1", "d7b8"}));
  // Same placement and side to move as the start, but White's king lost its jump.
  EXPECT_EQ(g.position().fen().substr(0, 45), "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w");
  EXPECT_EQ(rights_field(g), "Ede");
  EXPECT_EQ(g.repetitions(), 1);
}

// D7: Ouk Chatrang's insufficient material.
TEST(Rules, D7_LoneKnightWithNothingElseDrawsAtOnce) {
  Game g = make(OUK, "4k3/8/8/8/8/8/8/3NK3 w - - 0 1");
  expect_end(g, Result::Draw, Reason::InsufficientMaterial);
  EXPECT_FALSE(can_checkmate(g.position(), WHITE));
  EXPECT_FALSE(can_checkmate(g.position(), BLACK));
}

TEST(Rules, D7_NotInMakruk) {
  Game g = make(MAKRUK, "4k3/8/8/8/8/8/8/3NK3 w - - 0 1");
  EXPECT_FALSE(g.over());
  EXPECT_EQ(g.result(), Result::Ongoing);
}

TEST(Rules, D7_RookCanMate) {
  Game g = make(OUK, "4k3/8/8/8/8/8/8/3RK3 w - - 0 1");
  EXPECT_FALSE(g.over());
  EXPECT_TRUE(can_checkmate(g.position(), WHITE));
}

TEST(Rules, D7_KhonCanMate) {
  Game g = make(OUK, "4k3/8/8/8/8/8/8/3SK3 w - - 0 1");
  EXPECT_FALSE(g.over());
  EXPECT_TRUE(can_checkmate(g.position(), WHITE));
}

TEST(Rules, D7_KnightCanMateWhileAnotherPieceStandsOnTheBoard) {
  // The other piece is the opponent's met.
  Game g = make(OUK, "4k3/3m4/8/8/8/8/8/3NK3 w - - 0 1");
  EXPECT_FALSE(g.over());
  EXPECT_TRUE(can_checkmate(g.position(), WHITE));
  EXPECT_FALSE(can_checkmate(g.position(), BLACK));
}

TEST(Rules, D7_LonePawnWithNothingElseCannotMate) {
  Game g = make(OUK, "4k3/8/8/8/8/P7/8/4K3 w - - 0 1");
  expect_end(g, Result::Draw, Reason::InsufficientMaterial);
}

TEST(Rules, D7_PawnCanMateWithAnotherPieceOnTheBoard) {
  Game two = make(OUK, "4k3/8/8/8/8/PP6/8/4K3 w - - 0 1");
  EXPECT_FALSE(two.over());
  EXPECT_TRUE(can_checkmate(two.position(), WHITE));
  Game theirs = make(OUK, "4k3/3m4/8/8/8/P7/8/4K3 w - - 0 1");
  EXPECT_FALSE(theirs.over());
  EXPECT_TRUE(can_checkmate(theirs.position(), WHITE));
}

TEST(Rules, D7_MetMoversOnBothSquareColoursCanMate) {
  // Met on c1 (dark), promoted pawn on c2 (light).
  Game g = make(OUK, "4k3/8/8/8/8/8/2M~5/2M1K3 w - - 0 1");
  EXPECT_FALSE(g.over());
  EXPECT_TRUE(can_checkmate(g.position(), WHITE));
}

TEST(Rules, D7_MetMoversAllOnOneColourCannotMate) {
  // Met on c1 and promoted pawn on d2, both dark.
  Game g = make(OUK, "4k3/8/8/8/8/8/3M~4/2M1K3 w - - 0 1");
  expect_end(g, Result::Draw, Reason::InsufficientMaterial);
}

TEST(Rules, D7_OneMetEachCannotMate) {
  Game g = make(OUK, "4k3/3m4/8/8/8/8/8/2M1K3 w - - 0 1");
  expect_end(g, Result::Draw, Reason::InsufficientMaterial);
}

TEST(Rules, D7_DrawnByTheCaptureThatLeavesALoneKnight) {
  Game g = make(OUK, "4k3/8/8/8/8/8/n7/2R1K3 b - - 0 1");
  EXPECT_FALSE(g.over());
  ASSERT_TRUE(Play(g, {"a2c1"}));
  expect_end(g, Result::Draw, Reason::InsufficientMaterial);
}

TEST(Rules, CountRunsOut_Draws) {
  // K+2R+2S+2N+M v K: the piece count would start at 9 with limit 8.
  Game g = make(MAKRUK, "8/8/8/4k3/8/8/8/RNSKMSNR b - - 0 1");
  expect_end(g, Result::Draw, Reason::CountExpired);
}

// ---------------------------------------------------------------------------
// §3 Ouk first moves.

// White K d1 (right D) + R h1 v Black K e8 + R a8.
constexpr std::string_view KING_JUMP = "r3k3/8/8/8/8/8/8/3K3R w D - 0 1";

TEST(Rules, OukKingJump_KnightJumpOntoTheNextRankTwoFilesAside) {
  Game g = make(OUK, KING_JUMP);
  std::vector<std::string> king;
  for (const std::string& m : legal(g))
    if (m.substr(0, 2) == "d1") king.push_back(m);
  EXPECT_EQ(king, (std::vector<std::string>{"d1b2", "d1c1", "d1c2", "d1d2", "d1e1", "d1e2", "d1f2"}));
  ASSERT_TRUE(Play(g, {"d1b2"}));
  EXPECT_EQ(g.position().piece_on(make_square(1, 1)), make_piece(WHITE, KING));
  EXPECT_EQ(rights_field(g), "-");
}

TEST(Rules, OukKingJump_AtTheStartPosition) {
  Game g = make(OUK, "");
  EXPECT_TRUE(has_move(g, "d1b2"));
  EXPECT_TRUE(has_move(g, "d1f2"));
  ASSERT_TRUE(Play(g, {"d1f2"}));
  EXPECT_EQ(rights_field(g), "Ede");
  EXPECT_TRUE(has_move(g, "e8c7"));
  EXPECT_TRUE(has_move(g, "e8g7"));
}

TEST(Rules, OukKingJump_NotInMakruk) {
  Game g = make(MAKRUK, "");
  EXPECT_FALSE(has_move(g, "d1b2"));
  EXPECT_FALSE(has_move(g, "d1f2"));
  EXPECT_FALSE(has_move(g, "e1e3"));
}

TEST(Rules, OukKingJump_OnlyToAnEmptySquare) {
  // A Black met on b2 (no capture by the jump), a White khon on f2.
  Game g = make(OUK, "r3k3/8/8/8/8/8/1m3S2/3K3R w D - 0 1");
  EXPECT_FALSE(has_move(g, "d1b2"));
  EXPECT_FALSE(has_move(g, "d1f2"));
  EXPECT_TRUE(has_move(g, "d1d2"));
}

TEST(Rules, OukKingJump_NotWhenInCheck) {
  Game g = make(OUK, "3rk3/8/8/8/8/8/8/3K3R w D - 0 1");
  ASSERT_TRUE(g.position().in_check());
  EXPECT_EQ(legal(g), (std::vector<std::string>{"d1c1", "d1c2", "d1e1", "d1e2"}));
}

TEST(Rules, OukKingJump_NotIntoCheck) {
  Game g = make(OUK, "1r2k3/8/8/8/8/8/8/3K3R w D - 0 1");
  EXPECT_FALSE(has_move(g, "d1b2"));
  EXPECT_TRUE(has_move(g, "d1f2"));
}

TEST(Rules, OukKingJump_RightLostOnceTheKingHasMoved) {
  Game g = make(OUK, KING_JUMP);
  ASSERT_TRUE(Play(g, {"d1d2", "e8e7", "d2d1", "e7e8"}));
  EXPECT_EQ(rights_field(g), "-");
  EXPECT_FALSE(has_move(g, "d1b2"));
  EXPECT_FALSE(has_move(g, "d1f2"));
}

TEST(Rules, OukKingJump_BlackKingJumps) {
  Game g = make(OUK, "4k2r/8/8/8/8/8/8/R3K3 b e - 0 1");
  EXPECT_TRUE(has_move(g, "e8c7"));
  EXPECT_TRUE(has_move(g, "e8g7"));
  EXPECT_FALSE(has_move(g, "e8d6"));
  EXPECT_FALSE(has_move(g, "e8f6"));
}

TEST(Rules, D1_EnemyRookEndingOnTheKingsFileTakesTheRightEvenWithPiecesBetween) {
  Game g = make(OUK, "4k3/8/8/r7/8/8/3N4/3K3R b D - 0 1");
  ASSERT_TRUE(Play(g, {"a5d5"}));
  EXPECT_FALSE(g.position().in_check());
  EXPECT_EQ(rights_field(g), "-");
  EXPECT_FALSE(has_move(g, "d1b2"));
  EXPECT_FALSE(has_move(g, "d1f2"));
}

TEST(Rules, D1_EnemyRookEndingOnTheKingsRankTakesTheRightButNotTheNeangs) {
  Game g = make(OUK, "4k3/8/8/r7/8/8/8/2SKM2R b DE - 0 1");
  ASSERT_TRUE(Play(g, {"a5a1"}));
  EXPECT_FALSE(g.position().in_check());
  EXPECT_EQ(rights_field(g), "E");
  EXPECT_FALSE(has_move(g, "d1b2"));
  EXPECT_TRUE(has_move(g, "e1e3"));
}

TEST(Rules, D1_RookMoveElsewhereKeepsTheRight) {
  Game g = make(OUK, "4k3/8/8/r7/8/8/3N4/3K3R b D - 0 1");
  ASSERT_TRUE(Play(g, {"a5c5"}));
  EXPECT_EQ(rights_field(g), "D");
  EXPECT_TRUE(has_move(g, "d1b2"));
}

TEST(Rules, D1_DiscoveredRookAttackDoesNotTakeTheRight) {
  // Black's knight leaves d5: the rook on d8 now checks d1 without moving.
  Game g = make(OUK, "3rk3/8/8/3n4/8/8/7R/3K4 b D - 0 1");
  ASSERT_TRUE(Play(g, {"d5f4"}));
  EXPECT_TRUE(g.position().in_check());
  EXPECT_EQ(rights_field(g), "D");
  EXPECT_FALSE(has_move(g, "d1b2"));  // not while in check
  ASSERT_TRUE(Play(g, {"h2d2", "e8f7"}));
  EXPECT_EQ(rights_field(g), "D");
  EXPECT_TRUE(has_move(g, "d1b2"));
  EXPECT_TRUE(has_move(g, "d1f2"));
}

// White K d1, neang e1 (right E), knight e2 v Black K e8.
constexpr std::string_view NEANG_JUMP = "4k3/8/8/8/8/8/4N3/3KM3 w E - 0 1";

TEST(Rules, OukNeangJump_TwoSquaresStraightForwardOverAPiece) {
  Game g = make(OUK, NEANG_JUMP);
  EXPECT_TRUE(has_move(g, "e1e3"));
  ASSERT_TRUE(Play(g, {"e1e3"}));
  EXPECT_EQ(g.position().piece_on(make_square(4, 2)), make_piece(WHITE, MET));
  EXPECT_EQ(g.position().piece_on(make_square(4, 1)), make_piece(WHITE, KNIGHT));
  EXPECT_EQ(rights_field(g), "-");
}

TEST(Rules, OukNeangJump_BlackNeang) {
  Game g = make(OUK, "3mk3/3n4/8/8/8/8/8/4K2R b d - 0 1");
  EXPECT_TRUE(has_move(g, "d8d6"));
  EXPECT_FALSE(has_move(g, "d8d7"));
}

TEST(Rules, OukNeangJump_NeverCaptures) {
  Game g = make(OUK, "4k3/8/8/8/8/4r3/4N3/3KM3 w E - 0 1");
  EXPECT_FALSE(has_move(g, "e1e3"));
  Game own = make(OUK, "4k3/8/8/8/8/4N3/8/3KM3 w E - 0 1");
  EXPECT_FALSE(has_move(own, "e1e3"));
}

TEST(Rules, OukNeangJump_MayBlockACheck) {
  Game g = make(OUK, "4k3/8/8/8/8/K6r/8/4M3 w E - 0 1");
  ASSERT_TRUE(g.position().in_check());
  EXPECT_TRUE(has_move(g, "e1e3"));
  EXPECT_FALSE(has_move(g, "e1d2"));
  ASSERT_TRUE(Play(g, {"e1e3"}));
  EXPECT_FALSE(g.over());
}

TEST(Rules, OukNeangJump_NotWhenItLeavesTheCheckStanding) {
  Game g = make(OUK, "4k3/8/8/8/K6r/8/8/4M3 w E - 0 1");
  ASSERT_TRUE(g.position().in_check());
  EXPECT_FALSE(has_move(g, "e1e3"));
}

TEST(Rules, OukNeangJump_RightLostOnceTheNeangHasMoved) {
  Game g = make(OUK, NEANG_JUMP);
  ASSERT_TRUE(Play(g, {"e1f2", "e8d8", "f2e1", "d8e8"}));
  EXPECT_EQ(rights_field(g), "-");
  EXPECT_FALSE(has_move(g, "e1e3"));
}

TEST(Rules, OukNeangJump_RightLostOnceTheNeangIsCaptured) {
  Game g = make(OUK, "4k3/8/8/8/8/5n2/8/K3M2R b E - 0 1");
  ASSERT_TRUE(Play(g, {"f3e1"}));
  EXPECT_EQ(rights_field(g), "-");
}

// ---------------------------------------------------------------------------
// Promotion, moves after the end.

TEST(Rules, Promotion_WhitePawnOnTheSixthRankBecomesAPromotedPawn) {
  Game g = make(MAKRUK, "4k3/8/8/3P4/8/8/8/K7 w - - 0 1");
  ASSERT_TRUE(Play(g, {"d5d6"}));
  EXPECT_EQ(g.position().piece_on(make_square(3, 5)), make_piece(WHITE, PROMOTED));
  EXPECT_NE(g.position().fen().find("/3M~4/"), std::string::npos) << g.position().fen();
  EXPECT_EQ(g.record(), std::vector<std::string>{"d5d6m"});
}

TEST(Rules, Promotion_ByACapture) {
  Game g = make(MAKRUK, "4k3/8/4r3/3P4/8/8/8/K7 w - - 0 1");
  ASSERT_TRUE(Play(g, {"d5e6m"}));
  EXPECT_EQ(g.position().piece_on(make_square(4, 5)), make_piece(WHITE, PROMOTED));
  EXPECT_NE(g.position().fen().find("/4M~3/"), std::string::npos) << g.position().fen();
}

TEST(Rules, Promotion_BlackPawnOnTheThirdRank) {
  Game g = make(OUK, "4k3/8/8/8/3p4/8/8/K6R b - - 0 1");
  ASSERT_TRUE(Play(g, {"d4d3"}));
  EXPECT_EQ(g.position().piece_on(make_square(3, 2)), make_piece(BLACK, PROMOTED));
  EXPECT_NE(g.position().fen().find("/3m~4/"), std::string::npos) << g.position().fen();
}

TEST(Rules, Promotion_NotBeforeTheSixthRank) {
  Game g = make(MAKRUK, "4k3/8/8/8/3P4/8/8/K7 w - - 0 1");
  EXPECT_TRUE(Refused(g, "d4d5m"));
  ASSERT_TRUE(Play(g, {"d4d5"}));
  EXPECT_EQ(g.position().piece_on(make_square(3, 4)), make_piece(WHITE, PAWN));
  EXPECT_EQ(g.record(), std::vector<std::string>{"d4d5"});
}

TEST(Rules, Promotion_IsTheOnlyChoice) {
  Game g = make(MAKRUK, "4k3/8/8/3P4/8/8/8/K7 w - - 0 1");
  int pawnMoves = 0;
  for (Move m : g.legal_moves())
    if (m.from() == make_square(3, 4)) {
      ++pawnMoves;
      EXPECT_TRUE(m.is_promotion());
    }
  EXPECT_EQ(pawnMoves, 1);
}

TEST(Rules, MovesRefusedAfterTheGameEnds) {
  Game g = make(MAKRUK, "");
  ASSERT_TRUE(Play(g, {"e3e4", "resign:b"}));
  EXPECT_EQ(g.legal_moves().size, 0);
  EXPECT_TRUE(Refused(g, "d6d5"));
  std::string err;
  Move m = parse_move(g.position(), "d6d5");  // legal in the position itself
  ASSERT_FALSE(m.is_none());
  EXPECT_FALSE(g.play(m, &err));
  EXPECT_FALSE(err.empty());
  EXPECT_EQ(g.plies(), 1);
}

TEST(Rules, MovesRefusedAfterCheckmate) {
  Game g = make(MAKRUK, "6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
  ASSERT_TRUE(Play(g, {"a1a8"}));
  EXPECT_TRUE(Refused(g, "g8h8"));
  EXPECT_TRUE(Refused(g, "g6f6"));
  EXPECT_TRUE(Refused(g, "resign:b"));
}

// A paired game's side that never made its first move: the game is called
// off, with no winner or loser; once that side has moved, it cannot be.
TEST(Rules, AGameIsCalledOffOnlyForASideThatHasNotMoved) {
  Game g = make(MAKRUK, "");
  EXPECT_TRUE(Refused(g, "abort:b"));  // not Black's turn
  ASSERT_TRUE(Play(g, {"e3e4"}));
  EXPECT_TRUE(Refused(g, "abort:w"));  // White has moved
  Game h = g;
  ASSERT_TRUE(Play(h, {"e6e5"}));
  EXPECT_TRUE(Refused(h, "abort:w"));
  EXPECT_TRUE(Refused(h, "abort:b"));  // both have moved
  ASSERT_TRUE(Play(g, {"abort:b"}));
  expect_end(g, Result::Draw, Reason::Aborted);
  EXPECT_EQ(g.record().back(), "abort:b");
  EXPECT_FALSE(is_move_action("abort:b"));
  EXPECT_TRUE(Refused(g, "e6e5"));
}

// A clock ran out (a table with a clock; the server says when): the side to
// move loses, unless the other side could never checkmate with what it has.
TEST(Rules, TimeRunOutLosesUnlessTheOtherSideCannotMate) {
  Game g = make(MAKRUK, "");
  EXPECT_TRUE(Refused(g, "time:b"));  // Black's clock is not running
  ASSERT_TRUE(Play(g, {"e3e4", "time:b"}));
  expect_end(g, Result::WhiteWins, Reason::Time);
  EXPECT_FALSE(is_move_action("time:b"));
  EXPECT_TRUE(Refused(g, "time:w"));
  EXPECT_TRUE(Refused(g, "e4e5"));
  // White has a lone king: Black's time runs out, and it is a draw.
  Game bare = make(MAKRUK, "4k3/8/8/8/3r4/8/8/4K3 b - - 0 1");
  ASSERT_TRUE(Play(bare, {"time:b"}));
  expect_end(bare, Result::Draw, Reason::Time);
  // A lone king facing a rook: the king's side runs out and loses.
  Game lone = make(MAKRUK, "4k3/8/8/8/3r4/8/8/4K3 w - - 0 1");
  ASSERT_TRUE(Play(lone, {"time:w"}));
  expect_end(lone, Result::BlackWins, Reason::Time);
}

TEST(Rules, IllegalMoveIsRefused) {
  Game g = make(MAKRUK, "");
  EXPECT_TRUE(Refused(g, "e3e5"));
  EXPECT_TRUE(Refused(g, "e6e5"));  // Black's pawn on White's turn
  EXPECT_TRUE(Refused(g, "d1b2"));  // Ouk's jump, not Makruk's
}

// ---------------------------------------------------------------------------
// Zobrist keys.

TEST(Rules, Zobrist_FullKeyDiffersWithTheCountKeyIgnoresIt) {
  Game g = make(MAKRUK, "7k/8/8/8/8/8/8/RR2K3 b - - 0 1", DECL);
  const uint64_t key = g.position().key(), full = g.position().full_key();
  ASSERT_TRUE(Play(g, {"count:b"}));
  EXPECT_EQ(g.position().key(), key);
  EXPECT_NE(g.position().full_key(), full);
  ASSERT_TRUE(Play(g, {"stop:b"}));
  EXPECT_EQ(g.position().key(), key);
  EXPECT_EQ(g.position().full_key(), full);
}

TEST(Rules, Zobrist_EveryCountFieldChangesTheFullKey) {
  Position p;
  ASSERT_TRUE(p.set("7k/8/8/8/8/8/8/RR2K3 b - - 0 1", MAKRUK, AUTO, nullptr));
  const Count base = p.count();
  ASSERT_EQ(base.kind, CountKind::Piece);
  const uint64_t key = p.key(), full = p.full_key();
  auto check = [&](Count c, const char* what) {
    p.set_count(c);
    EXPECT_EQ(p.key(), key) << what;
    EXPECT_NE(p.full_key(), full) << what;
    p.set_count(base);
    EXPECT_EQ(p.full_key(), full) << what;
  };
  Count c = base;
  c.n = uint8_t(base.n + 1);
  check(c, "n");
  c = base;
  c.limit = 16;
  check(c, "limit");
  c = base;
  c.side = WHITE;
  check(c, "side");
  c = base;
  c.kind = CountKind::Board;
  check(c, "kind");
  check(Count{}, "none");
}

TEST(Rules, Zobrist_SamePlacementDifferentCountAfterPlay) {
  // The king leaves and returns: same key, the count has moved on.
  Game g = make(MAKRUK, "7k/8/8/8/8/8/8/RR2K3 b - - 0 1");
  const uint64_t key = g.position().key(), full = g.position().full_key();
  ASSERT_TRUE(Play(g, {"h8h7", "e1e2", "h7h8", "e2e1"}));
  EXPECT_EQ(g.position().key(), key);
  EXPECT_EQ(g.position().count().n, 6);
  EXPECT_NE(g.position().full_key(), full);
  EXPECT_EQ(g.repetitions(), 2);
}

}  // namespace
