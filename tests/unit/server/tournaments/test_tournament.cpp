// A tournament's flow: joining, starting, rounds paired as the games end,
// players dropping out and coming back, late players, pausing, ending early,
// the arena's waiting players, and the standings as CSV.
#include <gtest/gtest.h>

#include <set>

#include "server/tournaments/tournament.h"

using namespace makruk::server::tournaments;

namespace {

Tournament with_players(Settings s, int n) {
  Tournament t(s);
  for (int i = 1; i <= n; ++i) {
    int number = 0;
    EXPECT_EQ(t.join("Player " + std::to_string(i), number), Refusal::none);
    EXPECT_EQ(number, i);
  }
  return t;
}

// The games of a round.
std::vector<Pairing> round_of(const Tournament& t, int round) {
  std::vector<Pairing> out;
  for (const Pairing& g : t.games())
    if (g.round == round) out.push_back(g);
  return out;
}

// Ends every game of the round under way still running: the lower number wins
// (a draw where `draws`).
size_t play_round(Tournament& t, bool draws = false) {
  size_t first_new = 0;
  const int r = t.round();
  for (const Pairing& g : round_of(t, r)) {
    if (g.outcome != Outcome::pending) continue;
    const Outcome o = draws ? Outcome::draw : g.white < g.black ? Outcome::white_wins : Outcome::black_wins;
    EXPECT_EQ(t.game_ended(g.round, g.board, o, first_new), Refusal::none);
  }
  return first_new;
}

}  // namespace

TEST(Tournament, ASwissOfSixPlaysThreeRoundsPairedAsEachRoundEndsThenFinishes) {
  Tournament t = with_players(Settings{Format::swiss, 3}, 6);
  size_t first_new = 99;
  ASSERT_EQ(t.start(first_new), Refusal::none);
  EXPECT_EQ(first_new, 0u);
  EXPECT_EQ(t.status(), Tournament::Status::running);
  ASSERT_EQ(round_of(t, 1).size(), 3u);
  EXPECT_EQ(round_of(t, 1)[0].white, 1);
  EXPECT_EQ(round_of(t, 1)[0].black, 4);
  std::set<std::pair<int, int>> met;
  for (int r = 1; r <= 3; ++r) {
    for (const Pairing& g : round_of(t, r)) EXPECT_TRUE(met.insert({std::min(g.white, g.black), std::max(g.white, g.black)}).second);
    EXPECT_EQ(t.round(), r);
    play_round(t);
  }
  EXPECT_EQ(t.status(), Tournament::Status::finished);
  EXPECT_EQ(t.games().size(), 9u);
  // Player 1 beat everyone (the lower number always wins here): first with 3 points.
  const auto s = t.standings();
  EXPECT_EQ(s[0].player, 1);
  EXPECT_EQ(s[0].points, 6);
  EXPECT_EQ(s[5].points, 0);
  const std::string csv = t.standings_csv();
  EXPECT_EQ(csv.substr(0, csv.find("\r\n")), "place,number,name,points,buchholz,sonneborn_berger,wins,games");
  EXPECT_NE(csv.find("\r\n1,1,Player 1,3,"), std::string::npos) << csv;
}

TEST(Tournament, ARoundRobinOfFourPlaysTheBergerTablesAndRefusesLatePlayers) {
  Tournament t = with_players(Settings{Format::round_robin}, 4);
  size_t first_new = 0;
  ASSERT_EQ(t.start(first_new), Refusal::none);
  int number = 0;
  EXPECT_EQ(t.join("Late", number), Refusal::not_open);
  EXPECT_EQ(t.start(first_new), Refusal::not_open);
  std::set<std::pair<int, int>> met;
  for (int r = 1; r <= 3; ++r) {
    ASSERT_EQ(round_of(t, r).size(), 2u);
    for (const Pairing& g : round_of(t, r)) met.insert({std::min(g.white, g.black), std::max(g.white, g.black)});
    play_round(t, r == 2);
  }
  EXPECT_EQ(met.size(), 6u);
  EXPECT_EQ(t.status(), Tournament::Status::finished);
  EXPECT_EQ(t.standings()[0].player, 1);
}

TEST(Tournament, ARoundRobinPlayerWhoDropsOutGivesTheirOpponentsByes) {
  Tournament t = with_players(Settings{Format::round_robin}, 4);
  size_t first_new = 0;
  t.start(first_new);
  ASSERT_EQ(t.drop(2), Refusal::none);  // during round 1: their game goes on
  play_round(t);  // round 2 is paired without 2: one game, and a bye for 2's opponent
  EXPECT_EQ(round_of(t, 2).size(), 1u);
  ASSERT_EQ(t.byes().size(), 1u);
  EXPECT_EQ(t.byes()[0].round, 2);
  EXPECT_NE(t.byes()[0].player, 2);
}

TEST(Tournament, ASwissPlayerWhoDropsIsNotPairedUntilTheyComeBackAndALatePlayerJoinsTheNextRound) {
  Tournament t = with_players(Settings{Format::swiss, 4}, 4);
  size_t first_new = 0;
  t.start(first_new);
  ASSERT_EQ(t.drop(4), Refusal::none);
  int late = 0;
  ASSERT_EQ(t.join("Late", late), Refusal::none);
  EXPECT_EQ(late, 5);
  first_new = play_round(t);
  // Round 2: 1, 2, 3 and the late 5 play; 4 is out.
  const auto r2 = round_of(t, 2);
  EXPECT_EQ(first_new, 2u);
  ASSERT_EQ(r2.size(), 2u);
  for (const Pairing& g : r2) EXPECT_TRUE(g.white != 4 && g.black != 4);
  EXPECT_TRUE(t.byes().empty());
  ASSERT_EQ(t.come_back(4), Refusal::none);
  play_round(t);
  // Round 3: five present: two games and a bye.
  EXPECT_EQ(round_of(t, 3).size(), 2u);
  ASSERT_EQ(t.byes().size(), 1u);
  EXPECT_EQ(t.byes()[0].round, 3);
  EXPECT_EQ(t.drop(9), Refusal::unknown_player);
}

TEST(Tournament, PausedTheNextRoundWaitsAndEndedEarlyNoneComesButGamesUnderWayCount) {
  Tournament t = with_players(Settings{Format::swiss, 5}, 4);
  size_t first_new = 0;
  t.start(first_new);
  ASSERT_EQ(t.pause(), Refusal::none);
  play_round(t);
  EXPECT_EQ(t.round(), 1) << "no round while paused";
  ASSERT_EQ(t.resume(first_new), Refusal::none);
  EXPECT_EQ(t.round(), 2);
  EXPECT_EQ(first_new, 2u);
  EXPECT_EQ(t.resume(first_new), Refusal::not_running);
  ASSERT_EQ(t.end(), Refusal::none);
  const Pairing g = round_of(t, 2)[0];
  ASSERT_EQ(t.game_ended(2, g.board, Outcome::draw, first_new), Refusal::none);
  play_round(t);
  EXPECT_EQ(t.round(), 2) << "no round after the end";
  EXPECT_EQ(t.status(), Tournament::Status::finished);
  EXPECT_EQ(t.standings()[0].games, 2);
  int n = 0;
  EXPECT_EQ(t.join("Too late", n), Refusal::finished);
  EXPECT_EQ(t.end(), Refusal::finished);
}

TEST(Tournament, TheArenaPairsWhoeverWaitsAndNeverTheLastOpponentWhenAnotherWaits) {
  Tournament t = with_players(Settings{Format::arena}, 5);
  size_t first_new = 0;
  ASSERT_EQ(t.start(first_new), Refusal::none);
  ASSERT_EQ(t.games().size(), 2u);
  EXPECT_EQ(t.waiting(), std::vector<int>{5});  // the last to come waits
  // The first game ends: its two players wait again beside 5, and three are paired as two and one.
  const Pairing first = t.games()[0];
  ASSERT_EQ(t.game_ended(first.round, first.board, Outcome::white_wins, first_new), Refusal::none);
  EXPECT_EQ(t.waiting().size(), 3u);
  ASSERT_EQ(t.pair_waiting(first_new), Refusal::none);
  ASSERT_EQ(t.games().size(), 3u);
  const Pairing next = t.games()[2];
  EXPECT_FALSE((next.white == first.white && next.black == first.black) || (next.white == first.black && next.black == first.white))
      << "the same two again while another waits";
  // A late player waits at once; one who drops leaves the waiting.
  int late = 0;
  ASSERT_EQ(t.join("Late", late), Refusal::none);
  EXPECT_NE(std::find(t.waiting().begin(), t.waiting().end(), late), t.waiting().end());
  t.drop(late);
  EXPECT_EQ(std::find(t.waiting().begin(), t.waiting().end(), late), t.waiting().end());
  t.end();
  EXPECT_EQ(t.pair_waiting(first_new), Refusal::not_running);
  EXPECT_TRUE(t.waiting().empty());
}

TEST(Tournament, RefusalsChangeNothing) {
  Tournament one = with_players(Settings{Format::swiss, 3}, 1);
  size_t first_new = 0;
  EXPECT_EQ(one.start(first_new), Refusal::too_few);
  EXPECT_EQ(one.status(), Tournament::Status::open);
  EXPECT_EQ(one.pause(), Refusal::not_running);
  Tournament t = with_players(Settings{Format::swiss, 3}, 2);
  t.start(first_new);
  EXPECT_EQ(t.game_ended(1, 2, Outcome::draw, first_new), Refusal::unknown_game);
  EXPECT_EQ(t.game_ended(1, 1, Outcome::pending, first_new), Refusal::unknown_game);
  EXPECT_EQ(t.game_ended(1, 1, Outcome::draw, first_new), Refusal::none);
  EXPECT_EQ(t.game_ended(1, 1, Outcome::draw, first_new), Refusal::unknown_game) << "ended already";
  Tournament full = with_players(Settings{Format::round_robin}, Tournament::kMaxRoundRobin);
  int n = 0;
  EXPECT_EQ(full.join("One more", n), Refusal::full);
}

TEST(Tournament, NamesInTheCsvAreQuotedAndNeverReadAsFormulas) {
  Tournament t(Settings{Format::swiss, 1});
  int n = 0;
  t.join("Noi, \"the fox\"", n);
  t.join("=SUM(A1)", n);
  const std::string csv = t.standings_csv();
  EXPECT_NE(csv.find("\"Noi, \"\"the fox\"\"\""), std::string::npos) << csv;
  EXPECT_NE(csv.find(",'=SUM(A1),"), std::string::npos) << csv;
}
