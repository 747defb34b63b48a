// Standings and their tie-breaks, worked by hand.
#include <gtest/gtest.h>

#include "server/tournaments/standings.h"

using namespace makruk::server::tournaments;

TEST(Standings, SwissPointsThenBuchholzThenSonnebornBerger) {
  // Five players, two rounds.
  // R1: 1-2 1-0, 3-4 ½, bye 5.   R2: 5-1 0-1, 4-2 0-1, bye 3.
  // Points (half): 1: 4, 2: 2, 3: 1 + 2 = 3, 4: 1, 5: 2.
  History h;
  h.games = {{1, 1, 2, Outcome::white_wins}, {1, 3, 4, Outcome::draw}, {2, 5, 1, Outcome::black_wins},
             {2, 4, 2, Outcome::black_wins}};
  h.byes = {{1, 5}, {2, 3}};
  const auto s = standings({1, 2, 3, 4, 5}, h, Format::swiss);
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].player, 1);
  EXPECT_EQ(s[0].points, 4);
  EXPECT_EQ(s[0].buchholz, 2 + 2);             // 2 and 5 have a point each
  EXPECT_EQ(s[0].sonneborn_berger, 2 * 2 + 2 * 2);  // both beaten: 1 + 1 points = 8 quarters
  EXPECT_EQ(s[1].player, 3);                   // 1½
  EXPECT_EQ(s[1].buchholz, 1);                 // 4 has ½
  EXPECT_EQ(s[1].sonneborn_berger, 1);         // half of ½ = ¼
  // 2 and 5 on 1 point: 2's opponents 1 (2) and 4 (½) → Buchholz 2½; 5's only game was against 1 → 2.
  EXPECT_EQ(s[2].player, 2);
  EXPECT_EQ(s[2].buchholz, 5);
  EXPECT_EQ(s[3].player, 5);
  EXPECT_EQ(s[3].buchholz, 4);
  EXPECT_EQ(s[4].player, 4);
  EXPECT_EQ(s[4].games, 2);
  EXPECT_EQ(s[4].wins, 0);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i].place, int(i) + 1);
}

TEST(Standings, RoundRobinSonnebornBergerThenTheGamesBetweenThoseLevel) {
  // Four players, all three rounds (Berger: 1-4 2-3 / 4-3 1-2 / 2-4 3-1).
  // 1 beats 4, draws 2, loses to 3; 2 beats 3 and 4, draws 1; 3 beats 1 and 4? No:
  // R1: 1-4 1-0, 2-3 1-0.  R2: 4-3 0-1, 1-2 ½.  R3: 2-4 ½, 3-1 1-0.
  // Points: 1: 1½, 2: 2, 3: 2, 4: ½.
  // SB: 2 beat 3 (2) + drew 1 (1½/2) + drew 4 (½/2) = 2 + ¾ + ¼ = 3;
  //     3 beat 4 (½) + beat 1 (1½) = 2. So 2 before 3.
  History h;
  h.games = {{1, 1, 4, Outcome::white_wins}, {1, 2, 3, Outcome::white_wins}, {2, 4, 3, Outcome::black_wins},
             {2, 1, 2, Outcome::draw},       {3, 2, 4, Outcome::draw},       {3, 3, 1, Outcome::white_wins}};
  const auto s = standings({1, 2, 3, 4}, h, Format::round_robin);
  EXPECT_EQ(s[0].player, 2);
  EXPECT_EQ(s[0].sonneborn_berger, 12);  // 3 points in quarters
  EXPECT_EQ(s[1].player, 3);
  EXPECT_EQ(s[1].sonneborn_berger, 8);
  EXPECT_EQ(s[2].player, 1);
  EXPECT_EQ(s[3].player, 4);
}

TEST(Standings, RoundRobinLevelOnSonnebornBergerGoesByTheirOwnGame) {
  // Three players, 1 beats 2, 2 beats 3, 3 beats 1: all on 1 point, all SB 1 (quarters 4)...
  // then their games among themselves are level too: they share the place.
  History h;
  h.games = {{1, 1, 2, Outcome::white_wins}, {2, 2, 3, Outcome::white_wins}, {3, 3, 1, Outcome::white_wins}};
  auto s = standings({1, 2, 3}, h, Format::round_robin);
  for (const Standing& x : s) EXPECT_EQ(x.place, 1);
  // Four players where two are level on points and SB: 1 and 2 drew each other and
  // scored the same against the same others; 1 beat... give 1 the game between them.
  History g;
  g.games = {{1, 1, 2, Outcome::white_wins}, {1, 3, 4, Outcome::draw}};
  s = standings({1, 2, 3, 4}, g, Format::round_robin);
  EXPECT_EQ(s[0].player, 1);
  EXPECT_EQ(s[1].player, 3);
  EXPECT_EQ(s[1].place, 2);
  EXPECT_EQ(s[2].player, 4);
  EXPECT_EQ(s[2].place, 2);  // 3 and 4 drew: level on everything
}

TEST(Standings, ArenaWinsBreakTiesAndUnfinishedGamesCountNothing) {
  History h;
  h.games = {{1, 1, 2, Outcome::draw}, {1, 3, 4, Outcome::draw}, {2, 1, 3, Outcome::draw},
             {2, 2, 4, Outcome::white_wins}, {3, 1, 4, Outcome::pending}};
  const auto s = standings({1, 2, 3, 4}, h, Format::arena);
  EXPECT_EQ(s[0].player, 2);  // 3 half points, a win
  EXPECT_EQ(s[1].player, 1);  // 2 half points
  EXPECT_EQ(s[1].games, 2);
}

TEST(Standings, PointsWrittenAsPeopleWriteThem) {
  EXPECT_EQ(written_points(0, 2), "0");
  EXPECT_EQ(written_points(1, 2), "½");
  EXPECT_EQ(written_points(7, 2), "3½");
  EXPECT_EQ(written_points(8, 2), "4");
  EXPECT_EQ(written_points(13, 4), "3¼");
  EXPECT_EQ(written_points(3, 4), "¾");
}
