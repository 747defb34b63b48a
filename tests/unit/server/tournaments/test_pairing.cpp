// Tournament pairings: the matching against every pairing tried by hand, the
// Berger tables as FIDE publishes them, Swiss rounds worked by the Dutch rules,
// and whole Swiss tournaments played with random results, checked for what the
// rules forbid.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "server/tournaments/matching.h"
#include "server/tournaments/pairing.h"

using namespace makruk::server::tournaments;

namespace {

std::string written(const std::vector<Board>& boards) {
  std::string s;
  for (const Board& b : boards) {
    if (!s.empty()) s += ' ';
    s.append(std::to_string(b.white)).append(1, '-').append(std::to_string(b.black));
  }
  return s;
}

// Every perfect matching of 0..n-1, the cheapest by levels: what cheapest_pairing must find.
Cost best_by_hand(std::vector<int> open, const std::function<Cost(int, int)>& cost) {
  if (open.empty()) return Cost{};
  const int a = open.front();
  Cost best{};
  bool found = false;
  for (size_t k = 1; k < open.size(); ++k) {
    const int b = open[k];
    std::vector<int> rest;
    for (size_t i = 1; i < open.size(); ++i)
      if (i != k) rest.push_back(open[i]);
    Cost c = best_by_hand(rest, cost);
    const Cost here = cost(a, b);
    for (int l = 0; l < kCostLevels; ++l) c[l] += here[l];
    if (!found || c < best) best = c, found = true;
  }
  return best;
}

}  // namespace

TEST(Matching, FindsTheCheapestPairingLevelByLevelAsTryingEveryPairingDoes) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 * (1 + int(random() % 5));  // 2..10 players
    std::map<std::pair<int, int>, Cost> costs;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        Cost c{};
        for (int l = 0; l < kCostLevels; ++l) c[l] = random() % 4 == 0 ? random() % (l == 5 ? 1000 : 3) : 0;
        costs[{a, b}] = c;
      }
    }
    auto cost = [&](int a, int b) { return costs.at({std::min(a, b), std::max(a, b)}); };
    const std::vector<int> partner = cheapest_pairing(n, cost);
    Cost total{};
    for (int a = 0; a < n; ++a) {
      ASSERT_NE(partner[a], a);
      ASSERT_EQ(partner[partner[a]], a);
      if (a < partner[a])
        for (int l = 0; l < kCostLevels; ++l) total[l] += cost(a, partner[a])[l];
    }
    std::vector<int> everyone(n);
    for (int a = 0; a < n; ++a) everyone[a] = a;
    EXPECT_EQ(total, best_by_hand(everyone, cost)) << "trial " << trial << " with " << n << " players";
  }
}

TEST(Matching, RefusesAnOddCountAndLevelsPastTheirMaximum) {
  auto zero = [](int, int) { return Cost{}; };
  EXPECT_THROW(cheapest_pairing(3, zero), std::invalid_argument);
  EXPECT_TRUE(cheapest_pairing(0, zero).empty());
  EXPECT_THROW(cheapest_pairing(4, [](int, int) { return Cost{kLevelMax + 1, 0, 0, 0, 0, 0}; }), std::invalid_argument);
}

TEST(RoundRobin, TheBergerTablesAsFidePublishesThem) {
  // FIDE Handbook C.05, annex 1: the tables for 3 or 4, and 5 or 6 players.
  std::vector<std::string> four, six;
  for (const RoundPairing& r : round_robin(4)) four.push_back(written(r.boards));
  EXPECT_EQ(four, (std::vector<std::string>{"1-4 2-3", "4-3 1-2", "2-4 3-1"}));
  for (const RoundPairing& r : round_robin(6)) six.push_back(written(r.boards));
  EXPECT_EQ(six, (std::vector<std::string>{"1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"}));
}

TEST(RoundRobin, EveryoneMeetsEveryoneOnceWithColoursEvenAndOneByeARoundWhenOdd) {
  for (int n = 2; n <= 14; ++n) {
    const auto rounds = round_robin(n);
    EXPECT_EQ(int(rounds.size()), n % 2 == 0 ? n - 1 : n);
    std::set<std::pair<int, int>> met;
    std::map<int, int> whites, byes;
    for (const RoundPairing& r : rounds) {
      std::set<int> seen;
      for (const Board& b : r.boards) {
        EXPECT_TRUE(met.insert({std::min(b.white, b.black), std::max(b.white, b.black)}).second);
        EXPECT_TRUE(seen.insert(b.white).second && seen.insert(b.black).second);
        whites[b.white]++;
      }
      if (r.bye) byes[r.bye]++, seen.insert(r.bye);
      EXPECT_EQ(int(seen.size()), n) << n << " players: someone missing from a round";
    }
    EXPECT_EQ(int(met.size()), n * (n - 1) / 2);
    for (int p = 1; p <= n; ++p) {
      const int games = n - 1;
      EXPECT_LE(std::abs(2 * whites[p] - games), 2) << "player " << p << " of " << n;
      EXPECT_EQ(byes[p], n % 2);
    }
  }
}

TEST(Swiss, RoundOneTopHalfAgainstBottomHalfColoursAlternatingDownTheBoards) {
  // C.04.3: S1 = 1..4 meets S2 = 5..8 in order; the top player has the drawn colour,
  // the odd pairing numbers of S1 the same, the even ones the other.
  History none;
  EXPECT_EQ(written(pair_swiss({1, 2, 3, 4, 5, 6, 7, 8}, none).boards), "1-5 6-2 3-7 8-4");
  EXPECT_EQ(written(pair_swiss({1, 2, 3, 4, 5, 6, 7, 8}, none, Colour::black).boards), "5-1 2-6 7-3 4-8");
  // Odd: the lowest-ranked player has the bye.
  const RoundPairing seven = pair_swiss({1, 2, 3, 4, 5, 6, 7}, none);
  EXPECT_EQ(written(seven.boards), "1-4 5-2 3-6");
  EXPECT_EQ(seven.bye, 7);
}

TEST(Swiss, RoundTwoAsTheDutchRulesGiveItByHand) {
  // Round 1: 1-5 1-0, 6-2 0-1, 3-7 ½-½, 8-4 0-1. Score groups: {1,2,4} on 1,
  // {3,7} on ½, {5,6,8} on 0. By hand: in {1,2,4} 1 meets 2 (2 is due white) and 4
  // floats down to meet 3 (4 due white); 7 floats down, and meets 6, not 5 (7
  // and 5 are both due white, and so would 6 and 8 be): 5-8 is left.
  History h;
  h.games = {{1, 1, 5, Outcome::white_wins}, {1, 6, 2, Outcome::black_wins}, {1, 3, 7, Outcome::draw},
             {1, 8, 4, Outcome::black_wins}};
  const RoundPairing r = pair_swiss({1, 2, 3, 4, 5, 6, 7, 8}, h);
  EXPECT_EQ(written(r.boards), "2-1 4-3 7-6 5-8");
  EXPECT_EQ(r.bye, 0);
}

TEST(Swiss, ATranspositionAvoidsARepeatAndColoursFollowTheirPreferences) {
  // Round 1: 1-3 ½, 2-4 ½ (four players, all draws). Round 2, all on ½: S1 {1,2}
  // against S2 {3,4} would repeat 1-3, so S2 is transposed: 1-4, 2-3. After one
  // game everyone's preference is strong (C.04.3 A.6): 1 and 2 are due black,
  // 3 and 4 white, so both boards grant both: 4-1, 3-2.
  History h;
  h.games = {{1, 1, 3, Outcome::draw}, {1, 2, 4, Outcome::draw}};
  EXPECT_EQ(written(pair_swiss({1, 2, 3, 4}, h).boards), "4-1 3-2");
  // When the transposition would cost both boards their colours, the exchange
  // that grants every preference is the better pairing: round 1 1-3 ½, 4-2 ½
  // makes 1 and 4 due black, 2 and 3 white: 2-1, 3-4.
  h.games = {{1, 1, 3, Outcome::draw}, {1, 4, 2, Outcome::draw}};
  EXPECT_EQ(written(pair_swiss({1, 2, 3, 4}, h).boards), "2-1 3-4");
}

TEST(Swiss, TheByeGoesToTheLowestRankedOfTheLowestGroupWhoHasNotHadOne) {
  // Round 1 (five players): 1-2 1-0, 3-4 1-0, bye 5. Groups {1,3,5} on 1, {2,4} on 0:
  // the lowest of the lowest group, 4, has the bye.
  History h;
  h.games = {{1, 1, 2, Outcome::white_wins}, {1, 3, 4, Outcome::white_wins}};
  h.byes = {{1, 5}};
  EXPECT_EQ(pair_swiss({1, 2, 3, 4, 5}, h).bye, 4);
  // Round 2: 1-3 1-0, 2-5 1-0, bye 4. Now 1 has 2 points, the others 1. By hand:
  // 1 has met 2 and 3 and must have black (white twice in a row). Against 4, the
  // rest {2,3,5} would give the bye to 3 and pair 2-5 again; so 1 meets 5 (due
  // white), 3 (the lowest without a bye once 4 and 5 have had theirs) has the
  // bye, and 4 (due white) meets 2 (due black).
  h.games.push_back({2, 1, 3, Outcome::white_wins});
  h.games.push_back({2, 2, 5, Outcome::white_wins});
  h.byes.push_back({2, 4});
  const RoundPairing r = pair_swiss({1, 2, 3, 4, 5}, h);
  EXPECT_EQ(written(r.boards), "5-1 4-2");
  EXPECT_EQ(r.bye, 3);
}

TEST(Swiss, APlayerAwayIsLeftOutAndComesBackWhereTheirScorePutsThem) {
  History h;
  h.games = {{1, 1, 3, Outcome::white_wins}, {1, 4, 2, Outcome::black_wins}};
  // 2 is away in round 2: three present. 1 (on 1) floats down to {3,4} (on 0)
  // and has met 3: 1 meets 4, and 3 has the bye. 1 and 4 are both due black;
  // neither had black, so the higher-ranked 1 gets it: 4-1.
  RoundPairing r = pair_swiss({1, 3, 4}, h);
  EXPECT_EQ(r.bye, 3);
  EXPECT_EQ(written(r.boards), "4-1");
  // Back in round 3, 2 (on 1) is paired with the others.
  h.games.push_back({2, 4, 1, Outcome::black_wins});
  h.byes.push_back({2, 3});
  r = pair_swiss({1, 2, 3, 4}, h);
  EXPECT_EQ(r.boards.size(), 2u);
  EXPECT_EQ(r.bye, 0);
}

TEST(Swiss, WhenEveryPairingRepeatsAGameTheRoundIsStillPaired) {
  // Four players, three rounds: everyone has met everyone. A fourth round must
  // repeat games; it still pairs everyone, and keeps the forbidden colours out.
  History h;
  int round = 1;
  for (const RoundPairing& r : round_robin(4)) {
    for (const Board& b : r.boards) h.games.push_back({round, b.white, b.black, Outcome::draw});
    ++round;
  }
  const RoundPairing r = pair_swiss({1, 2, 3, 4}, h);
  ASSERT_EQ(r.boards.size(), 2u);
  std::set<int> seen;
  for (const Board& b : r.boards) seen.insert({b.white, b.black});
  EXPECT_EQ(seen.size(), 4u);
}

namespace {

// Plays a whole Swiss tournament with random results (players away now and then)
// and checks every round for what the rules forbid.
void play_swiss(int players, int rounds, unsigned seed) {
  std::mt19937 random(seed);
  History h;
  std::vector<int> everyone;
  for (int p = 1; p <= players; ++p) everyone.push_back(p);
  for (int round = 1; round <= rounds; ++round) {
    std::vector<int> present;
    for (int p : everyone)
      if (random() % 20 != 0) present.push_back(p);
    if (present.size() < 2) continue;
    const RoundPairing r = pair_swiss(present, h);
    std::set<int> seen;
    for (const Board& b : r.boards) {
      ASSERT_TRUE(seen.insert(b.white).second && seen.insert(b.black).second);
      for (const Game& g : h.games) {
        ASSERT_FALSE((g.white == b.white && g.black == b.black) || (g.white == b.black && g.black == b.white))
            << "a repeated pairing in round " << round << " (seed " << seed << ")";
      }
    }
    if (r.bye) {
      ASSERT_TRUE(seen.insert(r.bye).second);
      for (const Bye& b : h.byes) ASSERT_NE(b.player, r.bye) << "a second bye (seed " << seed << ")";
      h.byes.push_back({round, r.bye});
    }
    ASSERT_EQ(seen.size(), present.size());
    ASSERT_EQ(r.bye != 0, present.size() % 2 == 1);
    for (const Board& b : r.boards) {
      const int x = int(random() % 3);
      h.games.push_back({round, b.white, b.black, x == 0 ? Outcome::white_wins : x == 1 ? Outcome::draw : Outcome::black_wins});
    }
    // Colours: never three of one in a row, never a difference past two.
    for (int p : everyone) {
      std::string colours;
      for (const Game& g : h.games) {
        if (g.white == p) colours += 'W';
        if (g.black == p) colours += 'B';
      }
      const auto whites = std::count(colours.begin(), colours.end(), 'W');
      ASSERT_LE(std::abs(2 * whites - long(colours.size())), 2) << p << ": " << colours << " (seed " << seed << ")";
      ASSERT_EQ(colours.find("WWW"), std::string::npos) << p << ": " << colours << " (seed " << seed << ")";
      ASSERT_EQ(colours.find("BBB"), std::string::npos) << p << ": " << colours << " (seed " << seed << ")";
    }
  }
}

}  // namespace

TEST(Swiss, WholeTournamentsWithRandomResultsNeverRepeatAPairingOrAByeOrForbidAColour) {
  for (unsigned seed = 1; seed <= 12; ++seed) play_swiss(10 + int(seed) * 3, 7, seed);
  play_swiss(60, 9, 99);
}

TEST(Swiss, ScoreGroupsStayTogether) {
  // 16 players, round 2 after the top eight won: the winners meet winners, the
  // losers losers (two score groups of eight, no float needed).
  History h;
  for (int p = 1; p <= 8; ++p) h.games.push_back({1, p, p + 8, Outcome::white_wins});
  const RoundPairing r = pair_swiss({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, h);
  for (const Board& b : r.boards) EXPECT_EQ(b.white <= 8, b.black <= 8) << written(r.boards);
  // Within the winners: S1 {1,2,3,4} against S2 {5,6,7,8}, all due black: the
  // higher-ranked gets the preference.
  EXPECT_EQ(written(r.boards).substr(0, 15), "5-1 6-2 7-3 8-4");
}

TEST(Arena, PairsNeighboursInTheStandingsAvoidingTheLastOpponent) {
  History h;
  h.games = {{1, 1, 2, Outcome::white_wins}, {1, 3, 4, Outcome::white_wins}};
  // Waiting: 1, 3 (2 points), 2, 4 (0). 1 and 3 meet, 2 and 4 meet. Both of a
  // board had the same colour: the higher-ranked gets the other one.
  EXPECT_EQ(written(pair_arena({1, 2, 3, 4}, h)), "3-1 2-4");
  // Only 1 and 2 waiting: they meet again rather than wait (the only game there is).
  EXPECT_EQ(written(pair_arena({1, 2}, h)), "2-1");
  // Three waiting: the last to come waits on.
  EXPECT_EQ(written(pair_arena({4, 1, 3}, h)), "4-1");
  EXPECT_TRUE(pair_arena({5}, h).empty());
}

TEST(Arena, LastOpponentsFollowTheOrderOfPlayNotOfTheList) {
  History h;
  // Listed out of order: round 3 (1 against 4) is the latest for 1 and 4.
  h.games = {{3, 4, 1, Outcome::pending}, {1, 1, 2, Outcome::draw}, {2, 3, 1, Outcome::white_wins}};
  const std::map<int, int> last = last_opponents(h);
  EXPECT_EQ(last.at(1), 4);
  EXPECT_EQ(last.at(4), 1);
  EXPECT_EQ(last.at(2), 1);
  EXPECT_EQ(last.at(3), 1);
  EXPECT_FALSE(last.count(5));
}

TEST(ColourPreference, AfterEachRunOfGames) {
  History h;
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::none);
  h.games.push_back({1, 1, 2, Outcome::draw});
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::strong);  // a difference of one
  EXPECT_EQ(colour_preference(h, 1).colour, Colour::black);
  h.games.push_back({2, 1, 3, Outcome::draw});
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::absolute);
  h.games.push_back({3, 4, 1, Outcome::draw});
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::strong);
  EXPECT_EQ(colour_preference(h, 1).colour, Colour::black);
  h.games.push_back({4, 5, 1, Outcome::draw});  // W W B B: level, the other colour from the last
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::absolute);
  EXPECT_EQ(colour_preference(h, 1).colour, Colour::white);
  h.games.push_back({5, 1, 6, Outcome::draw});  // W W B B W: a difference of one
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::strong);
  h.games.push_back({6, 7, 1, Outcome::draw});  // ... B: level, mild, due white
  EXPECT_EQ(colour_preference(h, 1).strength, Preference::mild);
  EXPECT_EQ(colour_preference(h, 1).colour, Colour::white);
}
