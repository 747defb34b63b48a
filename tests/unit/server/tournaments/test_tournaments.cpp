// Tournaments served (server/tournaments/tournaments.h): made, joined and
// started by their code; each game an ordinary table at the hub, played there
// to its end; the next round paired as the last game of a round ends; the
// host's and the players' own actions; another instance on the same store
// that finds what the first did (and a game's end nobody told); exports; bad
// requests and the limits. On SQLite, and on PostgreSQL when the test command
// has started one.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <iostream>
#include <random>
#include <set>

#include "counting_store.h"
#include "fake_client.h"
#include "server/tables/hub.h"
#include "server/tournaments/tournaments.h"
#include "temp_db.h"
#include "temp_pg.h"

using namespace makruk;
using namespace makruk::server;
namespace json = boost::json;

namespace {

constexpr int64_t T0 = 1764460800000;  // 2025-11-30T00:00:00Z
constexpr const char* IP = "10.1.2.3";

using testing_helpers::body;
using testing_helpers::FakeClient;

class TournamentsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      if (testing_helpers::TempPg::server().empty()) GTEST_SKIP() << "no PostgreSQL (MAKRUK_TEST_POSTGRES) to test on";
      pg_ = std::make_unique<testing_helpers::TempPg>();
    }
    store_ = open();
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [this] { return clock_; });
    hub_->load();
    tournaments_ = make_tournaments(*store_);
    hub_->set_tournament_games([this](const std::string& ref, Result r) {
      if (tell_) tournaments_->game_over(ref, r);
    });
  }
  void TearDown() override {
    tournaments_.reset();
    hub_.reset();
    store_.reset();
    pg_.reset();
    db_.clear();
  }
  std::unique_ptr<Store> open() { return pg_ ? open_postgres_store(pg_->url()) : open_sqlite_store(db_.path()); }
  std::unique_ptr<Tournaments> make_tournaments(Store& store) {
    return std::make_unique<Tournaments>(
        store,
        Tournaments::Gate{[this](const std::string& ip) { return hub_->count_table(ip); },
                          [this](const std::string& ip, bool wrong) { return hub_->code_guess_allowed(ip, wrong); }},
        [this] { return clock_; });
  }

  // Makes a tournament: its code, the host's token in host_.
  std::string create(const std::string& request) {
    const Answer a = tournaments_->create(request, IP);
    EXPECT_EQ(a.outcome, Outcome::Created) << a.body;
    host_ = body(a)["hostToken"].as_string().c_str();
    return body(a)["code"].as_string().c_str();
  }
  // Joins: the player's token.
  std::string join(const std::string& code, const std::string& name) {
    const Answer a = tournaments_->join(code, R"({"name":")" + name + "\"}", IP);
    EXPECT_EQ(a.outcome, Outcome::Created) << a.body;
    return body(a)["you"].at("token").as_string().c_str();
  }
  json::object state(const std::string& code) {
    const Answer a = tournaments_->get(code, IP);
    EXPECT_EQ(a.outcome, Outcome::Ok) << a.body;
    return body(a);
  }
  Answer act(const std::string& code, const std::string& token, const std::string& action,
             const std::string& more = "") {
    return tournaments_->act(code, R"({"token":")" + token + R"(","action":")" + action + "\"" + more + "}", IP);
  }
  // The games of a round, as the tournament shows them.
  static std::vector<json::object> games_of(const json::object& s, int round) {
    std::vector<json::object> out;
    for (const auto& g : s.at("games").as_array())
      if (g.at("round").as_int64() == round) out.push_back(g.as_object());
    return out;
  }
  // A player at a game's table, through the hub (as their browser is).
  std::shared_ptr<FakeClient> sit(const std::string& table, const std::string& token) {
    auto c = std::make_shared<FakeClient>();
    c->ip = IP;
    hub_->on_message(c, R"({"t":"hello","code":")" + table + R"(","token":")" + token + "\"}");
    return c;
  }
  // The player with `token` resigns the game at `table`.
  json::object resign(const std::string& table, const std::string& token) {
    auto c = sit(table, token);
    const auto st = c->last("state");
    EXPECT_FALSE(st.empty()) << "no state for " << table;
    if (st.empty()) return {};
    return testing_helpers::answer_to(*hub_, c, R"({"t":"resign","v":)" + std::to_string(st.at("v").as_int64()) + "}");
  }
  // Plays out a round: in each game the player with the lower number wins
  // (the other resigns).
  void lower_number_wins(const std::string& code, int round, const std::vector<std::string>& tokens) {
    for (const auto& g : games_of(state(code), round)) {
      const int white = int(g.at("white").as_int64()), black = int(g.at("black").as_int64());
      const int loser = std::max(white, black);
      const auto a = resign(g.at("table").as_string().c_str(), tokens.at(size_t(loser - 1)));
      ASSERT_EQ(a.at("t").as_string(), "ack") << json::serialize(a);
    }
  }

  testing_helpers::TempDb db_{"tournaments"};
  std::unique_ptr<testing_helpers::TempPg> pg_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<Tournaments> tournaments_;
  int64_t clock_ = T0;
  bool tell_ = true;  // the hub tells the tournaments of games' ends
  std::string host_;
};

const char* SWISS = R"({"title":"Saturday club","variant":"makruk","format":"swiss","rounds":3})";

TEST_P(TournamentsTest, SixPlayersPlayAThreeRoundSwissAtTheirTablesToTheEnd) {
  const std::string code = create(SWISS);
  std::vector<std::string> tokens;
  for (const char* name : {"Anan", "Boon", "Chai", "Dao", "Ek", "Fah"}) tokens.push_back(join(code, name));
  json::object s = state(code);
  EXPECT_EQ(s["status"].as_string(), "open");
  EXPECT_EQ(s["title"].as_string(), "Saturday club");
  ASSERT_EQ(s["players"].as_array().size(), 6u);
  EXPECT_EQ(s["players"].as_array()[3].at("name").as_string(), "Dao");

  // Only the host starts it.
  EXPECT_EQ(act(code, tokens[0], "start").outcome, Outcome::Forbidden);
  ASSERT_EQ(act(code, host_, "start").outcome, Outcome::Ok);
  s = state(code);
  EXPECT_EQ(s["status"].as_string(), "running");
  EXPECT_EQ(s["round"].as_int64(), 1);
  // Round 1 by the Dutch rules: 1-4, 5-2, 3-6.
  const auto round1 = games_of(s, 1);
  ASSERT_EQ(round1.size(), 3u);
  const std::pair<int, int> expected[] = {{1, 4}, {5, 2}, {3, 6}};
  std::set<std::pair<int, int>> met;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(round1[i].at("board").as_int64(), int64_t(i + 1));
    EXPECT_EQ(round1[i].at("white").as_int64(), expected[i].first);
    EXPECT_EQ(round1[i].at("black").as_int64(), expected[i].second);
    EXPECT_TRUE(round1[i].at("result").is_null());
    // Each game is an ordinary table: both seats taken by the players, its
    // game begun, and it says which tournament it belongs to.
    const std::string table = round1[i].at("table").as_string().c_str();
    const auto party = body(hub_->get_table(table, IP))["party"].as_object();
    EXPECT_EQ(party.at("players").as_array()[0].at("name").as_string(), s["players"].as_array()[size_t(expected[i].first - 1)].at("name").as_string());
    EXPECT_EQ(party.at("status").as_string(), "playing");
    EXPECT_EQ(party.at("tournament").at("code").as_string(), code);
    EXPECT_EQ(party.at("tournament").at("board").as_int64(), int64_t(i + 1));
    // The players' tournament tokens are their seats' tokens.
    auto white = sit(table, tokens[size_t(expected[i].first - 1)]);
    EXPECT_EQ(white->last("welcome").at("seat").as_int64(), 0) << json::serialize(white->last("welcome"));
  }

  for (int round = 1; round <= 3; ++round) {
    s = state(code);
    ASSERT_EQ(s["round"].as_int64(), round);
    for (const auto& g : games_of(s, round)) {
      const int a = int(g.at("white").as_int64()), b = int(g.at("black").as_int64());
      const std::pair<int, int> pair{std::min(a, b), std::max(a, b)};
      EXPECT_TRUE(met.insert(pair).second) << "a repeated game " << pair.first << "-" << pair.second;
    }
    lower_number_wins(code, round, tokens);
  }
  s = state(code);
  EXPECT_EQ(s["status"].as_string(), "finished");
  EXPECT_EQ(s["games"].as_array().size(), 9u);
  for (const auto& g : s["games"].as_array()) EXPECT_FALSE(g.at("result").is_null());
  // Player 1 won every game, player 6 none; nine points in all.
  const auto& standings = s["standings"].as_array();
  ASSERT_EQ(standings.size(), 6u);
  EXPECT_EQ(standings[0].at("player").as_int64(), 1);
  EXPECT_EQ(standings[0].at("points").as_string(), "3");
  EXPECT_EQ(standings[5].at("player").as_int64(), 6);
  EXPECT_EQ(standings[5].at("points").as_string(), "0");
  int total = 0;
  for (const auto& st : standings) total += std::stoi(std::string(st.at("points").as_string().c_str()));
  EXPECT_EQ(total, 9);

  // A finished tournament takes nothing more; its games have no rematch.
  EXPECT_EQ(act(code, host_, "pause").outcome, Outcome::Conflict);
  auto c = sit(games_of(s, 3)[0].at("table").as_string().c_str(), tokens[0]);
  const auto refused = testing_helpers::answer_to(*hub_, c, R"({"t":"rematch"})");
  ASSERT_EQ(refused.at("t").as_string(), "error");
  EXPECT_EQ(refused.at("msg").as_string(), "table.rematch-tournament");

  // The exports: the standings as CSV, the nine games as one PGN.
  const Answer csv = tournaments_->standings_csv(code, IP);
  EXPECT_EQ(csv.type, "text/csv; charset=utf-8");
  EXPECT_NE(csv.body.find("Anan"), std::string::npos);
  const Answer pgn = tournaments_->games_pgn(code, IP);
  ASSERT_EQ(pgn.outcome, Outcome::Ok);
  size_t events = 0;
  for (size_t at = pgn.body.find("[Event \"Saturday club\"]"); at != std::string::npos;
       at = pgn.body.find("[Event \"Saturday club\"]", at + 1))
    ++events;
  EXPECT_EQ(events, 9u);
  EXPECT_NE(pgn.body.find("[Round \"3.1\"]"), std::string::npos);
  EXPECT_NE(pgn.body.find("Termination"), std::string::npos);
}

TEST_P(TournamentsTest, ARoundRobinOfFourWithAGameTheHostDecidesAndAPlayerWhoLeaves) {
  const std::string code = create(R"({"variant":"ouk","format":"roundrobin","mode":"live",
                                      "clock":{"minutes":5,"increment":3}})");
  std::vector<std::string> tokens;
  for (const char* name : {"A", "B", "C", "D"}) tokens.push_back(join(code, name));
  ASSERT_EQ(act(code, host_, "start").outcome, Outcome::Ok);
  json::object s = state(code);
  EXPECT_EQ(s["rounds"].as_int64(), 3);
  EXPECT_EQ(s["clock"].at("ms").as_int64(), 300000);
  // A round robin under way takes no new player.
  const Answer late = tournaments_->join(code, R"({"name":"E"})", IP);
  EXPECT_EQ(late.outcome, Outcome::Conflict);
  EXPECT_EQ(body(late)["msg"].as_string(), "tournament.not-open");
  // The games have the tournament's clock.
  const auto r1 = games_of(s, 1);
  ASSERT_EQ(r1.size(), 2u);
  const auto party = body(hub_->get_table(r1[0].at("table").as_string().c_str(), IP))["party"].as_object();
  EXPECT_EQ(party.at("rules").at("clock").at("ms").as_int64(), 300000);
  EXPECT_EQ(party.at("variant").as_string(), "ouk");

  // The host decides one game (a player never came); a player resigns the other.
  EXPECT_EQ(act(code, host_, "result", R"(,"round":1,"board":1,"result":"2-0")").outcome, Outcome::BadRequest);
  ASSERT_EQ(act(code, host_, "result", R"(,"round":1,"board":1,"result":"1/2-1/2")").outcome, Outcome::Ok);
  EXPECT_EQ(act(code, host_, "result", R"(,"round":1,"board":1,"result":"1-0")").outcome, Outcome::NotFound);
  EXPECT_EQ(state(code)["round"].as_int64(), 1);  // one game still under way
  resign(r1[1].at("table").as_string().c_str(), tokens[size_t(r1[1].at("black").as_int64() - 1)]);
  s = state(code);
  EXPECT_EQ(s["round"].as_int64(), 2);
  // A game the host decided that goes on at its table changes nothing when it ends.
  resign(r1[0].at("table").as_string().c_str(), tokens[size_t(r1[0].at("white").as_int64() - 1)]);
  EXPECT_EQ(state(code)["games"].as_array()[0].at("result").as_string(), "1/2-1/2");

  // Player D leaves: their remaining games become byes for their opponents.
  ASSERT_EQ(act(code, tokens[3], "leave").outcome, Outcome::Ok);
  EXPECT_TRUE(state(code)["players"].as_array()[3].at("dropped").as_bool());
  // Only a player of this tournament leaves, only the host drops others.
  EXPECT_EQ(act(code, "not-a-token", "leave").outcome, Outcome::Forbidden);
  EXPECT_EQ(act(code, tokens[0], "drop", R"(,"player":2)").outcome, Outcome::Forbidden);
  while (state(code)["status"].as_string() == "running") {
    s = state(code);
    bool any = false;
    for (const auto& g : games_of(s, int(s["round"].as_int64())))
      if (g.at("result").is_null()) {
        resign(g.at("table").as_string().c_str(), tokens[size_t(g.at("black").as_int64() - 1)]);
        any = true;
      }
    ASSERT_TRUE(any) << json::serialize(s);
  }
  s = state(code);
  EXPECT_EQ(s["status"].as_string(), "finished");
  EXPECT_FALSE(s["byes"].as_array().empty());
}

TEST_P(TournamentsTest, APlayerWhoMissesTheirGameIsDroppedUntilTheyComeBack) {
  const std::string code = create(R"({"format":"roundrobin","clock":{"minutes":1,"increment":0}})");
  std::vector<std::string> tokens;
  for (const char* name : {"A", "B", "C", "D"}) tokens.push_back(join(code, name));
  ASSERT_EQ(act(code, host_, "start").outcome, Outcome::Ok);
  const auto r1 = games_of(state(code), 1);
  ASSERT_EQ(r1.size(), 2u);
  const int white1 = int(r1[0].at("white").as_int64()), black2 = int(r1[1].at("black").as_int64());
  // Board 1: White never moves (Black is at the table); board 2: White moves once, Black never.
  auto there = sit(r1[0].at("table").as_string().c_str(), tokens[size_t(r1[0].at("black").as_int64() - 1)]);
  auto white = sit(r1[1].at("table").as_string().c_str(), tokens[size_t(r1[1].at("white").as_int64() - 1)]);
  ASSERT_EQ(testing_helpers::answer_to(*hub_, white, R"({"t":"move","move":"e3e4","v":0})").at("t").as_string(), "ack");
  clock_ += 61000;
  hub_->tick();
  json::object s = state(code);
  const auto& games = s["games"].as_array();
  EXPECT_EQ(games[0].at("result").as_string(), "0-1");
  EXPECT_EQ(games[1].at("result").as_string(), "1-0");
  // Both who missed their games are out of the pairings until they come back.
  const auto& players = s["players"].as_array();
  for (int p = 1; p <= 4; ++p)
    EXPECT_EQ(players[size_t(p - 1)].at("dropped").as_bool(), p == white1 || p == black2) << "player " << p;
  ASSERT_EQ(act(code, tokens[size_t(white1 - 1)], "back").outcome, Outcome::Ok);
  EXPECT_FALSE(state(code)["players"].as_array()[size_t(white1 - 1)].at("dropped").as_bool());
}

TEST_P(TournamentsTest, AnotherInstanceFindsWhatTheFirstDidAndAGameEndNobodyTold) {
  const std::string code = create(SWISS);
  std::vector<std::string> tokens;
  for (const char* name : {"A", "B", "C", "D"}) tokens.push_back(join(code, name));
  // A second instance: its own connection to the same store, its own memory.
  auto other_store = open();
  auto other = make_tournaments(*other_store);
  ASSERT_EQ(body(other->get(code, IP))["players"].as_array().size(), 4u);
  // It starts the tournament; the first instance sees the round.
  ASSERT_EQ(other->act(code, R"({"token":")" + host_ + R"(","action":"start"})", IP).outcome, Outcome::Ok);
  json::object s = state(code);
  ASSERT_EQ(s["status"].as_string(), "running");
  const auto r1 = games_of(s, 1);
  ASSERT_EQ(r1.size(), 2u);
  // A joiner at the first instance and the pause at the second take turns.
  join(code, "E");
  ASSERT_EQ(other->act(code, R"({"token":")" + host_ + R"(","action":"pause"})", IP).outcome, Outcome::Ok);
  EXPECT_EQ(state(code)["status"].as_string(), "paused");
  EXPECT_EQ(body(other->get(code, IP))["players"].as_array().size(), 5u);
  ASSERT_EQ(act(code, host_, "resume").outcome, Outcome::Ok);
  EXPECT_EQ(body(other->get(code, IP))["status"].as_string(), "running");  // (it looks at the games now)

  // Both games end at their tables, and nobody tells the tournaments (the
  // instance holding the tables died before it could).
  tell_ = false;
  for (const auto& g : r1) resign(g.at("table").as_string().c_str(), tokens[size_t(g.at("black").as_int64() - 1)]);
  EXPECT_EQ(body(other->get(code, IP))["round"].as_int64(), 1);
  // Looked at a little later, the games' ends are found and round 2 paired
  // (the late joiner in it).
  clock_ += 30000;
  s = body(other->get(code, IP));
  EXPECT_EQ(s["round"].as_int64(), 2);
  bool late_in = false;
  for (const auto& g : games_of(s, 2)) late_in |= g.at("white").as_int64() == 5 || g.at("black").as_int64() == 5;
  for (const auto& b : s["byes"].as_array()) late_in |= b.at("player").as_int64() == 5 && b.at("round").as_int64() == 2;
  EXPECT_TRUE(late_in) << json::serialize(s);
  // Round 2's tables were made at the second instance; the first finds them.
  for (const auto& g : games_of(state(code), 2))
    EXPECT_EQ(hub_->get_table(g.at("table").as_string().c_str(), IP).outcome, Outcome::Ok);
  other.reset();
  other_store.reset();
}

// Two instances see a round paired at once and both make its tables: the
// one that finds them made meanwhile (its look said "not yet") answers as
// usual, the tables as the other made them.
TEST_P(TournamentsTest, TablesMadeByAnotherInstanceAtTheSameMomentAreTakenAsMade) {
  const std::string code = create(SWISS);
  std::vector<std::string> tokens;
  for (const char* name : {"A", "B", "C", "D"}) tokens.push_back(join(code, name));
  auto other_store = open();
  testing_helpers::CountingStore late(*other_store);
  auto other = make_tournaments(late);
  ASSERT_EQ(act(code, host_, "start").outcome, Outcome::Ok);
  ASSERT_EQ(body(other->get(code, IP))["round"].as_int64(), 1);
  lower_number_wins(code, 1, tokens);  // round 2's tables made here
  late.blind_lookups = 100;
  const Answer a = other->get(code, IP);
  ASSERT_EQ(a.outcome, Outcome::Ok) << a.body;
  const auto r2 = games_of(body(a), 2);
  ASSERT_EQ(r2.size(), 2u);
  for (const auto& g : r2) {
    const Answer t = hub_->get_table(g.at("table").as_string().c_str(), IP);
    ASSERT_EQ(t.outcome, Outcome::Ok) << t.body;
    EXPECT_EQ(body(t)["party"].at("players").as_array().size(), 2u) << t.body;
  }
  // Round 2 plays on as usual, told to either instance.
  lower_number_wins(code, 2, tokens);
  EXPECT_EQ(body(other->get(code, IP))["round"].as_int64(), 3);
  other.reset();
}

TEST_P(TournamentsTest, AnArenaPairsWhoeverWaitsAndEndsOnTime) {
  const std::string code = create(R"({"format":"arena","minutes":30})");
  std::vector<std::string> tokens;
  for (const char* name : {"A", "B", "C", "D"}) tokens.push_back(join(code, name));
  ASSERT_EQ(act(code, host_, "start").outcome, Outcome::Ok);
  json::object s = state(code);
  EXPECT_EQ(s["endsAt"].as_int64(), T0 + 30 * 60000);
  ASSERT_EQ(s["games"].as_array().size(), 2u);
  // One game ends: its two players wait (no one else is free), then are
  // paired again once the other game ends too.
  const auto first = s["games"].as_array()[0].as_object(), second = s["games"].as_array()[1].as_object();
  resign(first.at("table").as_string().c_str(), tokens[size_t(first.at("black").as_int64() - 1)]);
  s = state(code);
  EXPECT_EQ(s["waiting"].as_array().size(), 2u);
  EXPECT_EQ(s["games"].as_array().size(), 2u);
  resign(second.at("table").as_string().c_str(), tokens[size_t(second.at("white").as_int64() - 1)]);
  s = state(code);
  EXPECT_EQ(s["games"].as_array().size(), 4u);
  EXPECT_TRUE(s["waiting"].as_array().empty());
  // A late player joins the arena at once and waits.
  join(code, "E");
  EXPECT_EQ(state(code)["waiting"].as_array().size(), 1u);
  // Time is up: the arena ends (the games under way still count when they end).
  clock_ += 30 * 60000;
  tournaments_->tick();
  s = state(code);
  EXPECT_EQ(s["status"].as_string(), "finished");
  const auto last = s["games"].as_array()[2].as_object();
  resign(last.at("table").as_string().c_str(), tokens[size_t(last.at("black").as_int64() - 1)]);
  EXPECT_FALSE(state(code)["games"].as_array()[2].at("result").is_null());
}

TEST_P(TournamentsTest, ATurnBasedTournamentsNewGamesAreToldAndPushesFollowThePlayers) {
  std::vector<std::string> told;  // the new games' tables, as the turn notifications hear of them
  tournaments_->set_new_game([&](const Table& table) {
    ASSERT_TRUE(table.turn_based());
    ASSERT_TRUE(table.game());
    told.push_back(table.code());
  });
  const std::string code = create(R"({"format":"swiss","rounds":2,"mode":"turn"})");
  std::vector<std::string> tokens;
  for (const char* name : {"A", "B", "C", "D"}) tokens.push_back(join(code, name));
  ASSERT_EQ(act(code, host_, "start").outcome, Outcome::Ok);
  const auto r1 = games_of(state(code), 1);
  ASSERT_EQ(told.size(), 2u);
  EXPECT_EQ(told[0], r1[0].at("table").as_string());
  // Player 1's browser subscribed at their first game's table (seat 0: White).
  ASSERT_EQ(r1[0].at("white").as_int64(), 1);
  store_->add_subscription(SubscriptionRecord{"https://push.example/a1", r1[0].at("table").as_string().c_str(), 0,
                                              "key", "auth", "th", T0});
  for (const auto& g : r1) resign(g.at("table").as_string().c_str(), tokens[size_t(g.at("black").as_int64() - 1)]);
  const auto r2 = games_of(state(code), 2);
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(told.size(), 4u);
  // The subscription followed player 1 to their round 2 game, at their seat there.
  for (const auto& g : r2) {
    const auto subs = store_->load_subscriptions(g.at("table").as_string().c_str());
    const bool has1 = g.at("white").as_int64() == 1 || g.at("black").as_int64() == 1;
    ASSERT_EQ(subs.size(), has1 ? 1u : 0u) << json::serialize(g);
    if (has1) {
      EXPECT_EQ(subs[0].endpoint, "https://push.example/a1");
      EXPECT_EQ(subs[0].seat, g.at("white").as_int64() == 1 ? 0 : 1);
      EXPECT_EQ(subs[0].lang, "th");
    }
  }
}

TEST_P(TournamentsTest, BadRequestsChangeNothingAndUnknownCodesCountAsWrongGuesses) {
  const auto refused = [&](const std::string& request, const char* msg) {
    const Answer a = tournaments_->create(request, IP);
    EXPECT_EQ(a.outcome, Outcome::BadRequest) << request;
    EXPECT_EQ(body(a)["msg"].as_string(), msg) << request << " " << a.body;
  };
  refused("not json", "request.json");
  refused(R"({"format":"knockout"})", "tournament.format");
  refused(R"({"format":"swiss","rounds":0})", "tournament.rounds");
  refused(R"({"format":"swiss","rounds":21})", "tournament.rounds");
  refused(R"({"format":"arena","minutes":2})", "tournament.minutes");
  refused(R"({"format":"swiss","variant":"chess"})", "table.variant");
  refused(R"({"format":"swiss","mode":"turn","clock":{"minutes":5,"increment":0}})", "table.clock-turn-based");
  refused(R"({"format":"swiss","clock":{"minutes":500}})", "table.clock");
  refused(R"({"format":"swiss","rounds":"3"})", "request.field-type");

  const std::string code = create(SWISS);
  EXPECT_EQ(tournaments_->join(code, R"({"name":""})", IP).outcome, Outcome::BadRequest);
  EXPECT_EQ(tournaments_->join(code, R"({"name":"a\u202eb"})", IP).outcome, Outcome::BadRequest);
  EXPECT_EQ(act(code, host_, "explode").outcome, Outcome::BadRequest);
  EXPECT_EQ(act(code, std::string(65, 'a'), "start").outcome, Outcome::BadRequest);
  EXPECT_EQ(act(code, host_, "start").outcome, Outcome::Conflict);  // nobody to play
  join(code, "Only");
  const Answer too_few = act(code, host_, "start");
  EXPECT_EQ(body(too_few)["msg"].as_string(), "tournament.too-few");
  EXPECT_EQ(state(code)["status"].as_string(), "open");
  EXPECT_EQ(state(code)["version"].as_int64(), 1);  // the one join

  // Unknown codes are wrong guesses: past the limit, even a lookup of a
  // real code is refused for that address.
  EXPECT_EQ(tournaments_->get("ZZZZZZ", "10.9.9.9").outcome, Outcome::NotFound);
  EXPECT_EQ(tournaments_->get("../../x", "10.9.9.9").outcome, Outcome::NotFound);
  for (int i = 0; i < 12; ++i) tournaments_->get("ZZZZZZ", "10.9.9.9");
  EXPECT_EQ(tournaments_->get(code, "10.9.9.9").outcome, Outcome::RateLimited);
  EXPECT_EQ(tournaments_->get(code, IP).outcome, Outcome::Ok);
}

TEST_P(TournamentsTest, ATournamentCountsAsATableMadeAndJoinsAreLimited) {
  HubLimits limits;
  limits.create_per_minute = 3;
  limits.join_per_minute = 4;
  hub_->set_limits(limits);
  tournaments_->set_limits(Tournaments::Limits{limits.join_per_minute});
  const std::string code = create(SWISS);
  create(SWISS);
  create(SWISS);
  const Answer fourth = tournaments_->create(SWISS, IP);
  EXPECT_EQ(fourth.outcome, Outcome::RateLimited);
  // And a table after them.
  EXPECT_EQ(hub_->create_table(R"({"name":"Host"})", IP).outcome, Outcome::RateLimited);
  for (int i = 0; i < 4; ++i) join(code, "P" + std::to_string(i));
  const Answer fifth = tournaments_->join(code, R"({"name":"P5"})", IP);
  EXPECT_EQ(fifth.outcome, Outcome::RateLimited);
  EXPECT_EQ(state(code)["players"].as_array().size(), 4u);
  clock_ += 61000;
  join(code, "P5");
}

// Random requests, good and bad, at two instances sharing the store, with
// games ending at their tables and the clock jumping: both instances always
// answer the same tournament, every game under way has its table with both
// players' seats, and the points add up (a win or a bye one point, a draw
// half to each).
TEST_P(TournamentsTest, RandomRequestsAtTwoInstancesAgreeAndBreakNothing) {
  auto other_store = open();
  auto other = make_tournaments(*other_store);
  std::mt19937 rng(20261205);
  auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
  const char* formats[] = {"swiss", "roundrobin", "arena"};
  size_t played = 0;
  for (int tournament = 0; tournament < 3; ++tournament) {
    const std::string code = create(std::string(R"({"format":")") + formats[tournament] + R"(","rounds":4,"minutes":30})");
    std::vector<std::string> tokens;
    // (no "end": it comes once in a while, below)
    const char* actions[] = {"start", "start", "pause", "resume", "resume", "drop", "back", "result", "explode"};
    const char* results[] = {"1-0", "1/2-1/2", "0-1", "2-0", ""};
    for (int step = 0; step < 150; ++step) {
      Tournaments& at = pick(2) ? *tournaments_ : *other;
      const int kind = step < 12 ? 0 : pick(60) == 0 ? 10 : pick(10);
      if (kind <= 1) {  // a join, sometimes a bad name
        const std::string name = pick(5) ? "P" + std::to_string(step) : std::string(pick(2) ? "" : "\u202ex");
        const Answer a = at.join(code, R"({"name":")" + name + "\"}", IP);
        if (a.outcome == Outcome::Created) tokens.push_back(body(a)["you"].at("token").as_string().c_str());
        else EXPECT_NE(a.outcome, Outcome::Internal) << a.body;
      } else if (kind <= 4) {  // the host's actions, some refused
        const std::string more = R"(,"player":)" + std::to_string(pick(8)) + R"(,"round":)" + std::to_string(pick(5)) +
                                 R"(,"board":)" + std::to_string(pick(4)) + R"(,"result":")" + results[pick(5)] + "\"";
        const Answer a = at.act(code, R"({"token":")" + host_ + R"(","action":")" + actions[pick(9)] + "\"" + more + "}", IP);
        EXPECT_NE(a.outcome, Outcome::Internal) << a.body;
      } else if (kind == 5 && !tokens.empty()) {  // a player leaves or comes back
        const Answer a = at.act(code, R"({"token":")" + tokens[size_t(pick(int(tokens.size())))] + R"(","action":")" +
                                          (pick(2) ? "leave" : "back") + "\"}", IP);
        EXPECT_NE(a.outcome, Outcome::Internal) << a.body;
      } else if (kind == 6) {  // junk
        std::string junk;
        for (int i = pick(40); i > 0; --i) junk += char(pick(256));
        EXPECT_EQ(at.act(code, junk, IP).outcome, Outcome::BadRequest);
      } else if (kind <= 8) {  // a game ends at its table
        const auto s = state(code);
        std::vector<json::object> pending;
        for (const auto& g : s.at("games").as_array())
          if (g.at("result").is_null()) pending.push_back(g.as_object());
        if (!pending.empty()) {
          const auto& g = pending[size_t(pick(int(pending.size())))];
          const int loser = int(pick(2) ? g.at("white").as_int64() : g.at("black").as_int64());
          resign(g.at("table").as_string().c_str(), tokens.at(size_t(loser - 1)));
        }
      } else if (kind == 9) {  // time passes
        clock_ += 1000 * pick(120);
        (pick(2) ? *tournaments_ : *other).tick();
      } else if (state(code)["status"].as_string() == "running") {  // the host ends it early, now and then
        EXPECT_NE(at.act(code, R"({"token":")" + host_ + R"(","action":"end"})", IP).outcome, Outcome::Internal);
      }
      // Both instances answer the same.
      const Answer mine = tournaments_->get(code, IP), theirs = other->get(code, IP);
      ASSERT_EQ(mine.outcome, Outcome::Ok);
      ASSERT_EQ(mine.body, theirs.body) << "step " << step;
      const json::object s = body(mine);
      // Every game under way has its table, its players in their seats.
      for (const auto& g : s.at("games").as_array()) {
        if (!g.at("result").is_null()) continue;
        const auto data = store_->load_table(g.at("table").as_string().c_str());
        ASSERT_TRUE(data) << json::serialize(g);
        ASSERT_EQ(data->seats.size(), 2u);
        EXPECT_EQ(data->seats[0].token_hash, hash_token(tokens.at(size_t(g.at("white").as_int64() - 1))));
        EXPECT_EQ(data->seats[1].token_hash, hash_token(tokens.at(size_t(g.at("black").as_int64() - 1))));
      }
      // The points add up (in half points).
      int halves = 0, expected = 0;
      for (const auto& st : s.at("standings").as_array()) {
        const std::string p(st.at("points").as_string());
        halves += 2 * std::atoi(p.c_str()) + (p.find("\u00bd") != std::string::npos ? 1 : 0);
      }
      for (const auto& g : s.at("games").as_array()) expected += g.at("result").is_null() ? 0 : 2;
      expected += 2 * int(s.at("byes").as_array().size());
      EXPECT_EQ(halves, expected) << "step " << step << ": " << json::serialize(s.at("standings"));
    }
    // It went somewhere: players joined, games were played.
    const json::object s = state(code);
    std::cout << "      " << formats[tournament] << ": " << s.at("players").as_array().size() << " players, "
              << s.at("games").as_array().size() << " games, " << s.at("status").as_string() << ", version "
              << s.at("version").as_int64() << "\n";
    played += s.at("games").as_array().size();
  }
  EXPECT_GE(played, 20u);
  other.reset();
  other_store.reset();
}

INSTANTIATE_TEST_SUITE_P(Backends, TournamentsTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
