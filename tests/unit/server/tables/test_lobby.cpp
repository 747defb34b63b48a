// Finding an opponent: the pairing queue on its own (compatibility, order,
// cancelling, one entry per browser, never oneself), then through the hub
// (paired players land at a table whose game begins when both are there; a
// player who declines or does not come ends it, and the other is told;
// closing leaves the queue; counts; limits).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "fake_client.h"
#include "server/tables/hub.h"
#include "server/tables/lobby.h"
#include "server/tables/matchmaker.h"
#include "temp_db.h"

using namespace makruk;
using namespace makruk::server;
using testing_helpers::body;
using testing_helpers::FakeClient;
namespace json = boost::json;

namespace {

Seek seek(uint64_t id, const std::string& browser, SeekWish wish = {"makruk", "auto", "live"}) {
  return Seek{id, browser, "10.0.0." + std::to_string(id), "P" + std::to_string(id), wish, int64_t(id), ""};
}

TEST(Matchmaker, PairsCompatibleWishesFirstComeFirstServed) {
  Matchmaker m;
  EXPECT_FALSE(m.seek(seek(1, "a", {"ouk", "auto", "live"})));
  EXPECT_FALSE(m.seek(seek(2, "b")));  // Makruk: not with 1
  auto p = m.seek(seek(3, "c"));       // Makruk: with 2
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first.id, 2u);
  EXPECT_EQ(p->second.id, 3u);
  EXPECT_EQ(m.waiting(), 1u);
}

TEST(Matchmaker, TheOneWhoWaitedLongerIsFirst) {
  Matchmaker m;
  EXPECT_FALSE(m.seek(seek(1, "a", {"ouk", "", ""})));
  EXPECT_FALSE(m.seek(seek(2, "b", {"makruk", "declare", "live"})));
  // Either variant, declared counting: both 1 and 2 would do; 1 waited longer.
  auto p = m.seek(seek(3, "c", {"", "declare", ""}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first.id, 1u);
  EXPECT_EQ(p->second.id, 3u);
  EXPECT_EQ(p->agreed.variant, "ouk");
  EXPECT_EQ(p->agreed.counting, "declare");
  EXPECT_EQ(p->agreed.mode, "live");
  EXPECT_EQ(m.waiting(), 1u);
  EXPECT_EQ(m.queue().front().id, 2u);
}

TEST(Matchmaker, IncompatibleChoicesWaitAndWideningPairs) {
  Matchmaker m;
  EXPECT_FALSE(m.seek(seek(1, "a", {"makruk", "auto", "live"})));
  EXPECT_FALSE(m.seek(seek(2, "b", {"ouk", "auto", "live"})));
  EXPECT_FALSE(m.seek(seek(3, "c", {"makruk", "declare", "live"})));
  EXPECT_FALSE(m.seek(seek(4, "d", {"makruk", "auto", "turn"})));
  EXPECT_EQ(m.waiting(), 4u);
  // Browser d widens its choice (the same connection seeks again): it pairs with 1.
  auto p = m.seek(seek(4, "d", {"makruk", "auto", ""}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first.id, 1u);
  EXPECT_EQ(p->agreed.mode, "live");
  EXPECT_EQ(m.waiting(), 2u);
}

TEST(Matchmaker, OneEntryPerBrowserAndNeverOneself) {
  Matchmaker m;
  uint64_t replaced = 0;
  EXPECT_FALSE(m.seek(seek(1, "same"), &replaced));
  EXPECT_EQ(replaced, 0u);
  // A second tab of the same browser replaces the first; it is not paired with it.
  EXPECT_FALSE(m.seek(seek(2, "same"), &replaced));
  EXPECT_EQ(replaced, 1u);
  EXPECT_EQ(m.waiting(), 1u);
  EXPECT_EQ(m.queue().front().id, 2u);
  auto p = m.seek(seek(3, "other"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first.id, 2u);
}

TEST(Matchmaker, ASeekSentBackToTheFrontIsPairedFirst) {
  Matchmaker m;
  EXPECT_FALSE(m.seek(seek(1, "a", {"makruk", "auto", "live"})));
  Seek front = seek(2, "b", {"ouk", "auto", "live"});
  front.since = 0;
  EXPECT_FALSE(m.seek(front));
  ASSERT_EQ(m.queue().size(), 2u);
  EXPECT_EQ(m.queue().front().id, 2u);
  auto p = m.seek(seek(3, "c", {"", "", ""}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first.id, 2u);
}

TEST(Matchmaker, CancelLeavesTheQueue) {
  Matchmaker m;
  EXPECT_FALSE(m.seek(seek(1, "a")));
  EXPECT_TRUE(m.cancel(1));
  EXPECT_FALSE(m.cancel(1));
  EXPECT_EQ(m.waiting(), 0u);
  EXPECT_FALSE(m.seek(seek(2, "b")));  // nobody to pair with any more
  EXPECT_EQ(m.waiting_from("10.0.0.2"), 1u);
}

TEST(Matchmaker, AgreeFillsEveryField) {
  auto a = Matchmaker::agree({"", "", ""}, {"", "", ""});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->variant, "makruk");
  EXPECT_EQ(a->counting, "auto");
  EXPECT_EQ(a->mode, "live");
  EXPECT_FALSE(Matchmaker::agree({"ouk", "", ""}, {"makruk", "", ""}));
  EXPECT_EQ(Matchmaker::agree({"", "", "turn"}, {"ouk", "", ""})->mode, "turn");
}

// The lobby alone, as a part: tables that only record what they are asked.
class LobbyAlone : public ::testing::Test {
 protected:
  std::shared_ptr<FakeClient> seeker(uint64_t id, const std::string& ip) {
    auto c = std::make_shared<FakeClient>();
    c->id = id;
    c->ip = ip;
    return c;
  }
  // Runs what the lobby posted to its executor, and what that posts, until nothing is left.
  void flush() {
    while (!posted_.empty()) {
      auto fs = std::move(posted_);
      posted_.clear();
      for (auto& f : fs) f();
    }
  }

  int64_t clock_ = 1764460800000;
  std::vector<Pairing> pairings_;
  std::vector<std::shared_ptr<Client>> taken_;  // the connections the tables took for their tables
  std::set<std::string> full_;                   // addresses that may make no more tables
  bool front_ = true;                            // what the tables answer a seek for the front
  int fronts_asked_ = 0;
  std::vector<std::string> declined_;  // codes of pairings declined through the lobby
  std::vector<std::function<void()>> posted_;
  server::Lobby lobby_{
      server::Lobby::Tables{
          [this](const Pairing& p, std::array<std::shared_ptr<Client>, 2> here) {
            pairings_.push_back(p);
            for (const auto& c : here)
              if (c) taken_.push_back(c);
          },
          [](std::function<void(int64_t)> done) { done(7); },
          [this](const std::string& ip) { return !full_.count(ip); },
          [this](const std::shared_ptr<Client>&, const std::string&, const std::string&,
                 std::function<void(bool)> done) {
            ++fronts_asked_;
            done(front_);
          },
          [this](const std::shared_ptr<Client>&, const std::string& code, const std::string&) {
            declined_.push_back(code);
          }},
      [this] { return clock_; }, [this](std::function<void()> f) { posted_.push_back(std::move(f)); }};
};

TEST_F(LobbyAlone, PairsThroughTheTablesAndTellsTheSeekersTheCounts) {
  auto a = seeker(1, "10.0.0.1"), b = seeker(2, "10.0.0.2"), c = seeker(3, "10.0.0.3");
  lobby_.seek(a, {"makruk", "auto", "live"}, "Ann", "browser-a", {});
  clock_ += 10;
  lobby_.seek(b, {"ouk", "", ""}, "Bo", "browser-b", {});
  EXPECT_TRUE(pairings_.empty());
  EXPECT_EQ(a->count("seeking"), 1u);
  flush();
  EXPECT_EQ(a->last("lobby")["waiting"].to_number<int64_t>(), 2);
  EXPECT_EQ(b->last("lobby")["playing"].to_number<int64_t>(), 7);  // as the tables count them
  clock_ += 10;
  lobby_.seek(c, {"", "", ""}, "Cy", "browser-c", {});  // any game: with the one who waited longest
  ASSERT_EQ(pairings_.size(), 1u);
  EXPECT_EQ(pairings_[0].first.id, 1u);
  EXPECT_EQ(pairings_[0].second.id, 3u);
  EXPECT_EQ(pairings_[0].agreed.variant, "makruk");
  EXPECT_EQ(taken_.size(), 2u);  // both connections left the lobby for the table
  EXPECT_EQ(lobby_.seekers(), 1u);
  EXPECT_EQ(lobby_.waiting(), 1u);
  lobby_.unseek(b, true);
  EXPECT_EQ(b->last("seek-ended")["reason"].as_string(), "cancelled");
  EXPECT_EQ(lobby_.seekers(), 0u);
}

// A shared queue in memory, as instances sharing Redis have it: its
// questions wait until the test runs them (as the bus's thread would), and
// each fails the test when asked outside one. `answers` false: Redis does
// not answer.
class HeldQueue final : public Bus {
 public:
  std::vector<std::function<void()>> questions;
  std::vector<std::pair<int64_t, std::string>> queue;  // by time, then text
  bool answers = true;
  std::set<std::string> dead;  // instances no longer alive

  void run() {
    while (!questions.empty()) {
      auto q = std::move(questions.front());
      questions.erase(questions.begin());
      in_question_ = true;
      q();
      in_question_ = false;
    }
  }
  void ask(std::function<void()> q) override { questions.push_back(std::move(q)); }
  std::optional<std::vector<std::string>> seeks() override {
    asked();
    if (!answers) return std::nullopt;
    std::sort(queue.begin(), queue.end());
    std::vector<std::string> out;
    for (auto& e : queue) out.push_back(e.second);
    return out;
  }
  std::optional<size_t> seek_count() override {
    asked();
    if (!answers) return std::nullopt;
    return queue.size();
  }
  bool add_seek(const std::string& entry, int64_t since) override {
    asked();
    if (!answers) return false;
    queue.emplace_back(since, entry);
    return true;
  }
  bool take_seek(const std::string& entry) override {
    asked();
    if (!answers) return false;
    auto it = std::find_if(queue.begin(), queue.end(), [&](const auto& e) { return e.second == entry; });
    if (it == queue.end()) return false;
    queue.erase(it);
    return true;
  }
  bool is_alive(const std::string& instance) override {
    asked();
    return !dead.count(instance);
  }
  bool healthy() override {
    asked();
    return answers;
  }
  bool up() const override { return answers; }
  void count(const std::string&, int64_t, bool, std::function<void(std::optional<int64_t>)>) override {}
  void publish(const BusMessage&) override {}
  void start(std::function<void(BusMessage)>) override {}
  void stop() override {}
  const std::string& id() const override { return id_; }
  void alive() override {}

 private:
  void asked() const { EXPECT_TRUE(in_question_) << "the bus was asked outside its questions' thread"; }
  bool in_question_ = false;
  std::string id_ = "here";
};

// With other instances, the shared queue is asked on the bus's thread: a
// seeker is answered once it has been, the seekers of two instances are
// paired there, a cancel sent meanwhile takes the entry out after it, the
// limit on seekers per address counts the shared queue, and while Redis
// does not answer this instance pairs its own seekers.
TEST_F(LobbyAlone, WithABusTheSharedQueueIsAskedOffTheLobbysThread) {
  HeldQueue bus;
  lobby_.set_bus(&bus);
  auto a = seeker(1, "10.0.0.1"), b = seeker(2, "10.0.0.2");
  // Another instance's seeker already waits.
  bus.queue.emplace_back(5, R"({"i":"there","c":77,"b":"browser-x","a":"10.9.9.9","n":"Xu","v":"ouk","k":"","m":"","s":5})");
  lobby_.seek(a, {"makruk", "auto", "live"}, "Ann", "browser-a", {});
  EXPECT_TRUE(a->last("seeking").empty()) << "answered before the shared queue was asked";
  bus.run();
  flush();
  EXPECT_EQ(a->last("seeking")["variant"].as_string(), "makruk");
  EXPECT_EQ(bus.queue.size(), 2u);
  flush();
  bus.run();
  flush();
  EXPECT_EQ(a->last("lobby")["waiting"].to_number<int64_t>(), 2) << "the shared queue's length";
  // b wants Ouk: paired with the other instance's seeker, who waited longer.
  lobby_.seek(b, {"ouk", "", ""}, "Bo", "browser-b", {});
  bus.run();
  flush();
  ASSERT_EQ(pairings_.size(), 1u);
  EXPECT_EQ(pairings_[0].first.id, 77u);
  EXPECT_EQ(pairings_[0].first.instance, "there");
  EXPECT_EQ(pairings_[0].second.id, 2u);
  EXPECT_EQ(bus.queue.size(), 1u);
  // A seek and its cancel at once: the entry leaves the shared queue.
  auto c = seeker(3, "10.0.0.3");
  lobby_.seek(c, {"makruk", "declare", "turn"}, "Cy", "browser-c", {});
  lobby_.unseek(c, true);
  EXPECT_EQ(c->last("seek-ended")["reason"].as_string(), "cancelled");
  bus.run();
  flush();
  EXPECT_EQ(bus.queue.size(), 1u) << "only a's entry is left";
  EXPECT_TRUE(c->last("seeking").empty()) << "a cancelled seek is not told it waits";
  // Seekers per address count the shared queue (another instance's too).
  lobby_.set_limits(server::Lobby::Limits{20, 2, false, 200});
  bus.queue.emplace_back(9, R"({"i":"there","c":78,"b":"browser-y","a":"10.0.0.4","n":"Yo","v":"ouk","k":"declare","m":"turn","s":9})");
  bus.queue.emplace_back(9, R"({"i":"there","c":79,"b":"browser-z","a":"10.0.0.4","n":"Zi","v":"ouk","k":"declare","m":"turn","s":9})");
  auto d = seeker(4, "10.0.0.4");
  lobby_.seek(d, {"makruk", "auto", "live"}, "Di", "browser-d", {});
  bus.run();
  flush();
  EXPECT_EQ(d->last("error")["msg"].as_string(), "limit.seekers");
  EXPECT_EQ(bus.queue.size(), 3u);
  // Redis does not answer: this instance pairs its own seekers meanwhile.
  bus.answers = false;
  auto e = seeker(5, "10.0.0.5"), f = seeker(6, "10.0.0.6");
  lobby_.seek(e, {"makruk", "auto", "live"}, "Em", "browser-e", {});
  bus.run();
  flush();
  EXPECT_EQ(e->last("seeking")["variant"].as_string(), "makruk");
  lobby_.seek(f, {"makruk", "", ""}, "Fa", "browser-f", {});
  bus.run();
  flush();
  ASSERT_EQ(pairings_.size(), 2u);
  EXPECT_EQ(pairings_[1].first.id, 5u);
  EXPECT_EQ(pairings_[1].second.id, 6u);
}

TEST_F(LobbyAlone, OnlyASeekWithinItsLimitsAsksForTheFront) {
  auto early = seeker(1, "10.0.0.1"), back = seeker(2, "10.0.0.2"), late = seeker(3, "10.0.0.3");
  // The early one and the one sent to the front cannot meet; the late one
  // can meet either.
  lobby_.seek(early, {"ouk", "auto", ""}, "Early", "browser-1", {});
  const server::Lobby::Front front{"ABCDEF", "token"};
  full_.insert("10.0.0.2");  // may make no more tables: refused before the front is asked
  lobby_.seek(back, {"ouk", "declare", ""}, "Back", "browser-2", front);
  EXPECT_EQ(back->last("error")["msg"].as_string(), "limit.tables");
  EXPECT_EQ(fronts_asked_, 0);
  full_.clear();
  clock_ += 1000;
  lobby_.seek(back, {"ouk", "declare", ""}, "Back", "browser-2", front);  // now it goes to the front
  EXPECT_EQ(fronts_asked_, 1);
  flush();  // the answer comes back to the lobby's executor
  EXPECT_TRUE(pairings_.empty());
  lobby_.seek(late, {"ouk", "", ""}, "Late", "browser-3", {});
  ASSERT_EQ(pairings_.size(), 1u);
  EXPECT_EQ(pairings_[0].first.id, 2u);  // before the one who came earlier
  EXPECT_EQ(pairings_[0].second.id, 3u);
}

// A seek that asks for the front and is cancelled (or whose page closes)
// before the table answers goes nowhere.
TEST_F(LobbyAlone, ASeekCancelledWhileItsFrontIsAskedIsNotQueued) {
  auto back = seeker(2, "10.0.0.2"), gone = seeker(4, "10.0.0.4"), late = seeker(3, "10.0.0.3");
  lobby_.seek(back, {"ouk", "", ""}, "Back", "browser-2", server::Lobby::Front{"ABCDEF", "token"});
  lobby_.unseek(back, true);
  lobby_.seek(gone, {"ouk", "", ""}, "Gone", "browser-4", server::Lobby::Front{"ABCDEF", "token"});
  lobby_.on_close(gone);
  flush();
  EXPECT_EQ(fronts_asked_, 2);
  EXPECT_EQ(lobby_.waiting(), 0u);
  EXPECT_TRUE(back->last("seeking").empty());
  lobby_.seek(late, {"ouk", "", ""}, "Late", "browser-3", {});
  EXPECT_TRUE(pairings_.empty());
  EXPECT_EQ(lobby_.waiting(), 1u);
}

// The lobby's connections speak its messages only: a seek, a cancel, a
// "Not now" (handed to the table), a ping; anything else belongs at a table,
// and malformed or flooding messages are refused as a hub refuses them.
TEST_F(LobbyAlone, ALobbyConnectionIsHeardAsTheLobbysAndNothingElse) {
  auto c = seeker(0, "10.0.0.1");
  lobby_.on_message(c, R"({"t":"ping"})");
  EXPECT_EQ(c->count("pong"), 1u);
  EXPECT_NE(c->id, 0u) << "given an id on its first message";
  lobby_.on_message(c, R"({"t":"seek","name":"Ann","browser":"b","variant":"ouk"})");
  EXPECT_EQ(c->last("seeking")["variant"], "ouk");
  lobby_.on_message(c, R"({"t":"unseek"})");
  EXPECT_EQ(c->last("seek-ended")["reason"], "cancelled");
  lobby_.on_message(c, R"({"t":"decline-pairing","code":"abcdef","token":"t"})");
  EXPECT_EQ(declined_, std::vector<std::string>{"abcdef"});
  lobby_.on_message(c, R"({"t":"move","id":"m1","move":"e3e4"})");
  EXPECT_EQ(c->last("error")["msg"], "table.hello-first");
  EXPECT_EQ(c->last("error")["id"], "m1");
  lobby_.on_message(c, R"({"t":"seek","name":5})");
  EXPECT_EQ(c->last("error")["code"], "bad-request");
  lobby_.on_message(c, "not json");
  EXPECT_EQ(c->last("error")["code"], "bad-request");
  lobby_.on_message(c, R"({"t":"ping","id":")" + std::string(65, 'i') + "\"}");
  EXPECT_EQ(c->last("error")["code"], "bad-request");
  // A flood: refused past the connection's rate, then closed.
  for (int i = 0; i < 100; ++i) lobby_.on_message(c, R"({"t":"ping"})");
  EXPECT_EQ(c->last("error")["code"], "rate-limited");
  EXPECT_TRUE(c->closed);
}

class Lobby : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [this] { return clock_; });
    hub_->load();
    auto defer = [this](int64_t, std::function<void()> f) { deferred_.push_back(std::move(f)); };
    hub_->set_defer(defer);
    // The lobby as the server has it, its executor and the hub's one here.
    lobby_ = std::make_unique<server::Lobby>(
        Hub::lobby_tables(*hub_, 1, [this](size_t, std::function<void(Hub&)> work) { work(*hub_); }),
        [this] { return clock_; }, [](std::function<void()> f) { f(); });
    lobby_->set_defer(defer);
    hub_->set_lobby(lobby_.get());
    set_limits(HubLimits{});
  }
  void TearDown() override {
    lobby_.reset();
    hub_.reset();
    store_.reset();
    db_.clear();
  }
  void flush() {
    auto fs = std::move(deferred_);
    deferred_.clear();
    for (auto& f : fs) f();
  }
  std::shared_ptr<FakeClient> client(const std::string& ip) {
    auto c = std::make_shared<FakeClient>();
    c->ip = ip;
    return c;
  }
  // A message heard where the network layer would give it: a connection
  // whose first message is a hello at its table's hub, any other at the
  // lobby (the tests' seekers say no hello later).
  void say(const std::shared_ptr<FakeClient>& c, const json::object& m) {
    const std::string text = json::serialize(m);
    Listener*& heard_by = heard_by_[c.get()];
    if (!heard_by) heard_by = hello_code(text).empty() ? static_cast<Listener*>(lobby_.get()) : hub_.get();
    heard_by->on_message(c, text);
    clock_ += 100;
  }
  void close(const std::shared_ptr<FakeClient>& c) {
    if (Listener* heard_by = heard_by_[c.get()]) heard_by->on_close(c);
  }
  void set_limits(const HubLimits& limits) {
    hub_->set_limits(limits);
    lobby_->set_limits(limits.lobby());
  }
  // GET /api/lobby.
  json::object counts() {
    json::object out;
    lobby_->counts([&](json::object o) { out = std::move(o); });
    return out;
  }
  json::object seekMsg(const std::string& name, const std::string& browser, const std::string& variant = "makruk") {
    return json::object{{"t", "seek"}, {"name", name}, {"browser", browser}, {"variant", variant},
                        {"counting", "auto"}, {"mode", "live"}};
  }

  // Two seekers (from 10.0.0.1 and .2) paired, and both at the table: their
  // "paired" messages, and their table connections (host first, White).
  struct Seated {
    json::object paired_host, paired_guest;
    std::shared_ptr<FakeClient> host, guest;
  };
  Seated paired_and_seated(const std::string& host_name, const std::string& guest_name) {
    auto a = client("10.0.0.1"), b = client("10.0.0.2");
    say(a, seekMsg(host_name, "browser-a"));
    say(b, seekMsg(guest_name, "browser-b"));
    Seated s{a->last("paired"), b->last("paired"), client("10.0.0.1"), client("10.0.0.2")};
    say(s.host, json::object{{"t", "hello"}, {"code", s.paired_host["code"]}, {"token", s.paired_host["token"]}});
    say(s.guest, json::object{{"t", "hello"}, {"code", s.paired_guest["code"]}, {"token", s.paired_guest["token"]}});
    return s;
  }

  testing_helpers::TempDb db_{"makruk-lobby"};
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<server::Lobby> lobby_;
  std::map<Client*, Listener*> heard_by_;
  std::vector<std::function<void()>> deferred_;
  int64_t clock_ = 1764460800000;
};

TEST_F(Lobby, TwoSeekersLandInAStartedTableAndAThirdWaits) {
  auto a = client("10.0.0.1"), b = client("10.0.0.2"), c = client("10.0.0.3");
  say(a, seekMsg("Somchai", "browser-a"));
  EXPECT_EQ(a->count("seeking"), 1u);
  EXPECT_TRUE(a->greeted);
  flush();
  EXPECT_EQ(a->last("lobby")["waiting"], 1);
  say(b, seekMsg("Dara", "browser-b"));
  json::object pa = a->last("paired"), pb = b->last("paired");
  ASSERT_FALSE(pa.empty());
  ASSERT_FALSE(pb.empty());
  EXPECT_EQ(pa["code"], pb["code"]);
  EXPECT_EQ(pa["seat"], 0);  // waited longer: the host
  EXPECT_EQ(pb["seat"], 1);
  EXPECT_EQ(pa["opponent"], "Dara");
  // The game begins when both have come to the table: no Start needed.
  EXPECT_EQ(pa["party"].as_object()["status"], "ready");
  EXPECT_EQ(pa["party"].as_object()["pairing"].as_object()["arriveBy"], clock_ - 100 + 30000);
  // The tokens are seats of that table.
  const std::string code(pa["code"].as_string());
  auto host = client("10.0.0.1"), guest = client("10.0.0.2");
  say(host, json::object{{"t", "hello"}, {"code", code}, {"token", pa["token"]}});
  EXPECT_EQ(host->last("welcome")["seat"], 0);
  EXPECT_EQ(host->count("state"), 0u);  // the other is not there yet
  say(guest, json::object{{"t", "hello"}, {"code", code}, {"token", pb["token"]}});
  EXPECT_EQ(host->last("state")["v"], 0);
  EXPECT_EQ(guest->last("state")["v"], 0);
  EXPECT_EQ(host->last("party")["status"], "playing");
  EXPECT_FALSE(host->last("party").contains("pairing"));
  // Both make their first moves in time: the pairing's deadlines passing later change nothing.
  say(host, json::object{{"t", "move"}, {"move", "e3e4"}, {"v", 0}});
  say(guest, json::object{{"t", "move"}, {"move", "d6d5"}, {"v", 1}});
  EXPECT_EQ(guest->last("state")["v"], 2);
  clock_ += 60000;
  flush();
  hub_->tick();
  EXPECT_EQ(host->last("party")["status"], "playing");
  // A third waits.
  say(c, seekMsg("Noi", "browser-c"));
  EXPECT_EQ(c->count("paired"), 0u);
  flush();
  EXPECT_EQ(c->last("lobby")["waiting"], 1);
  EXPECT_EQ(c->last("lobby")["playing"], 2);  // both are connected to a running game
  EXPECT_EQ(counts()["waiting"], 1);
}

// A player practising while waiting taps "Not now": the table ends unstarted
// and the one who came is told who declined (and may seek again).
TEST_F(Lobby, APairedPlayerWhoDeclinesEndsTheTableAndTheOtherIsTold) {
  auto a = client("10.0.0.1"), b = client("10.0.0.2");
  say(a, seekMsg("Somchai", "browser-a"));
  say(b, seekMsg("Busy B", "browser-b"));
  json::object pa = a->last("paired"), pb = b->last("paired");
  const std::string code(pa["code"].as_string());
  auto host = client("10.0.0.1");
  say(host, json::object{{"t", "hello"}, {"code", code}, {"token", pa["token"]}});
  // A wrong token declines nothing.
  say(b, json::object{{"t", "decline-pairing"}, {"code", code}, {"token", "not-a-token"}});
  EXPECT_EQ(b->last("error")["code"], "forbidden");
  EXPECT_EQ(host->last("party")["status"], "ready");
  say(b, json::object{{"t", "decline-pairing"}, {"code", code}, {"token", pb["token"]}});
  EXPECT_EQ(b->last("pairing-ended")["reason"], "declined");
  json::object party = host->last("party");
  EXPECT_EQ(party["status"], "expired");
  EXPECT_EQ(party["pairing"].as_object()["ended"], "declined");
  EXPECT_EQ(party["pairing"].as_object()["missing"], 1);
  EXPECT_EQ(host->count("state"), 0u);  // no game was ever played
  // Coming later changes nothing, and declining again is refused.
  auto late = client("10.0.0.2");
  say(late, json::object{{"t", "hello"}, {"code", code}, {"token", pb["token"]}});
  EXPECT_EQ(late->count("state"), 0u);
  say(b, json::object{{"t", "decline-pairing"}, {"code", code}, {"token", pb["token"]}});
  EXPECT_EQ(b->last("error")["code"], "conflict");
  // Both may seek again at once.
  auto a2 = client("10.0.0.1"), b2 = client("10.0.0.2");
  say(a2, seekMsg("Somchai", "browser-a"));
  say(b2, seekMsg("Busy B", "browser-b"));
  EXPECT_EQ(b2->count("paired"), 1u);
}

// A paired player who does not come within 30 s: the one who came is told,
// and so is the absent one's own page (its "opponent found" notice goes).
TEST_F(Lobby, APairedPlayerWhoDoesNotComeInTimeEndsTheTable) {
  auto a = client("10.0.0.1"), b = client("10.0.0.2");
  say(a, seekMsg("Somchai", "browser-a"));
  say(b, seekMsg("Absent", "browser-b"));
  json::object pa = a->last("paired");
  const std::string code(pa["code"].as_string());
  auto host = client("10.0.0.1");
  say(host, json::object{{"t", "hello"}, {"code", code}, {"token", pa["token"]}});
  clock_ += 10000;
  flush();  // the check comes early: nothing yet
  EXPECT_EQ(host->last("party")["status"], "ready");
  clock_ += 25000;
  flush();
  json::object party = host->last("party");
  EXPECT_EQ(party["status"], "expired");
  EXPECT_EQ(party["pairing"].as_object()["ended"], "absent");
  EXPECT_EQ(party["pairing"].as_object()["missing"], 1);
  EXPECT_EQ(b->last("pairing-ended")["reason"], "absent");
  EXPECT_EQ(a->last("pairing-ended")["reason"], "absent");
}

// A turn-based pairing begins at once: nobody need be there.
TEST_F(Lobby, ATurnBasedPairingBeginsAtOnce) {
  auto a = client("10.0.0.1"), b = client("10.0.0.2");
  say(a, json::object{{"t", "seek"}, {"name", "A"}, {"browser", "a"}, {"mode", "turn"}});
  say(b, json::object{{"t", "seek"}, {"name", "B"}, {"browser", "b"}, {"mode", "turn"}});
  EXPECT_EQ(a->last("paired")["party"].as_object()["status"], "playing");
}

TEST_F(Lobby, ClosingThePageOrCancellingLeavesTheQueue) {
  auto a = client("10.0.0.1"), b = client("10.0.0.2");
  say(a, seekMsg("Somchai", "browser-a"));
  close(a);
  say(b, seekMsg("Dara", "browser-b"));
  EXPECT_EQ(b->count("paired"), 0u);  // a had gone
  say(b, json::object{{"t", "unseek"}});
  EXPECT_EQ(b->last("seek-ended")["reason"], "cancelled");
  EXPECT_EQ(counts()["waiting"], 0);
}

TEST_F(Lobby, ASecondTabOfOneBrowserReplacesTheFirstAndIsNotPairedWithIt) {
  auto tab1 = client("10.0.0.1"), tab2 = client("10.0.0.1"), other = client("10.0.0.2");
  say(tab1, seekMsg("Somchai", "same-browser"));
  say(tab2, seekMsg("Somchai", "same-browser"));
  EXPECT_EQ(tab1->last("seek-ended")["reason"], "replaced");
  EXPECT_EQ(tab2->count("paired"), 0u);
  say(other, seekMsg("Dara", "other-browser"));
  EXPECT_EQ(tab2->count("paired"), 1u);
  EXPECT_EQ(tab1->count("paired"), 0u);
}

TEST_F(Lobby, BadSeeksAreRefusedAndAddressesAreLimited) {
  auto a = client("10.0.0.1");
  say(a, json::object{{"t", "seek"}, {"name", ""}});
  EXPECT_EQ(a->last("error")["code"], "bad-request");
  say(a, json::object{{"t", "seek"}, {"name", "X"}, {"variant", "chess"}});
  EXPECT_EQ(a->last("error")["code"], "bad-request");
  say(a, json::object{{"t", "seek"}, {"name", "X"}, {"mode", 5}});
  EXPECT_EQ(a->last("error")["code"], "bad-request");
  EXPECT_EQ(counts()["waiting"], 0);
  // Four people may wait from one address (a family, a school); a fifth is refused.
  const SeekWish wishes[5] = {{"makruk", "auto", "live"}, {"ouk", "auto", "live"}, {"makruk", "declare", "live"},
                              {"makruk", "auto", "turn"}, {"ouk", "declare", "turn"}};
  std::vector<std::shared_ptr<FakeClient>> many;
  for (int i = 0; i < 5; ++i) {
    many.push_back(client("10.0.0.9"));
    say(many.back(), json::object{{"t", "seek"}, {"name", "P"}, {"browser", "b" + std::to_string(i)},
                                  {"variant", wishes[i].variant}, {"counting", wishes[i].counting},
                                  {"mode", wishes[i].mode}});
  }
  EXPECT_EQ(counts()["waiting"], 4);
  EXPECT_EQ(many[4]->last("error")["code"], "rate-limited");
  auto flood = client("10.0.0.8");
  for (int i = 0; i < 25; ++i) say(flood, seekMsg("F", "f"));
  EXPECT_EQ(flood->last("error")["code"], "rate-limited");
}

// Round 2, 5: a pairing counts against both addresses' new tables, and an
// address past that limit may not seek: pairing oneself (two browsers at one
// address) makes no more tables than creating them.
TEST_F(Lobby, APairingCountsAgainstTheCreationLimit) {
  HubLimits limits;
  limits.create_per_minute = 3;
  limits.pair_same_address = true;  // as a server started with --pair-same-address
  set_limits(limits);
  int paired = 0;
  for (int i = 0; i < 4; ++i) {
    auto a = client("10.0.0.7"), b = client("10.0.0.7");
    say(a, seekMsg("A", "a" + std::to_string(i)));
    say(b, seekMsg("B", "b" + std::to_string(i)));
    paired += b->count("paired") > 0;
    if (i == 1) {  // two pairings: four tables' worth from this address
      EXPECT_EQ(hub_->create_table(R"({"name":"More"})", "10.0.0.7").outcome, Outcome::RateLimited);
    }
  }
  EXPECT_EQ(paired, 2) << "pairings past the address's limit of new tables";
  EXPECT_EQ(hub_->create_table(R"({"name":"Other"})", "10.0.0.6").outcome, Outcome::Created);  // another address
  clock_ += 61000;
  auto a = client("10.0.0.7"), b = client("10.0.0.5");
  say(a, seekMsg("A", "late-a"));
  say(b, seekMsg("B", "late-b"));
  EXPECT_EQ(b->count("paired"), 1u) << "the minute has passed";
}

// A paired player who makes no first move: once the game has begun, each
// player has 30 s from their first turn to make a move. White moved, Black
// did not: the game is called off (no winner or loser), the table ends, and
// White may seek again at the front of the queue, once; Black may not.
TEST_F(Lobby, APairedPlayerWhoMakesNoFirstMoveLosesThePairingAndTheOtherGoesToTheFront) {
  auto [pa, pb, host, guest] = paired_and_seated("Somchai", "Silent");
  const std::string code(pa["code"].as_string());
  ASSERT_EQ(host->last("party")["status"], "playing");
  clock_ += 25000;
  flush();
  hub_->tick();
  say(host, json::object{{"t", "move"}, {"move", "e3e4"}, {"v", 0}});  // White, within its 30 s
  ASSERT_EQ(host->last("ack")["v"], 1);
  clock_ += 25000;  // 50 s since the game began, 25 s since Black's first turn came
  flush();
  hub_->tick();
  EXPECT_EQ(host->last("party")["status"], "playing");
  clock_ += 6000;
  flush();
  json::object state = guest->last("state");
  EXPECT_EQ(state["reason"], "aborted");
  EXPECT_EQ(state["result"], "1/2-1/2");  // no winner or loser
  json::object party = host->last("party");
  EXPECT_EQ(party["status"], "expired");
  EXPECT_EQ(party["pairing"].as_object()["ended"], "no-move");
  EXPECT_EQ(party["pairing"].as_object()["missing"], 1);
  // Black moving now is too late.
  say(guest, json::object{{"t", "move"}, {"move", "d6d5"}, {"v", 2}});
  EXPECT_FALSE(guest->last("error").empty());
  // The queue: one waits for Ouk; Black (sending the table's code and its
  // token, which puts nobody in front) waits for Makruk with declared
  // counting; then White, at the front, for Makruk with automatic counting.
  auto c = client("10.0.0.3"), e = client("10.0.0.5"), f = client("10.0.0.6"), g = client("10.0.0.8");
  say(c, seekMsg("Ouk fan", "browser-c", "ouk"));
  auto front = [&](const std::string& counting, const json::value& token) {
    return json::object{{"t", "seek"}, {"name", "X"}, {"browser", counting + "-browser"}, {"variant", "makruk"},
                        {"counting", counting}, {"mode", "live"}, {"code", code}, {"token", token}};
  };
  // Each seeks from the finding page's own connection, as the client does.
  auto white = client("10.0.0.1"), black = client("10.0.0.2");
  say(black, front("declare", pb["token"]));
  say(white, front("auto", pa["token"]));
  EXPECT_EQ(white->count("seeking"), 1u);
  say(e, json::object{{"t", "seek"}, {"name", "E"}, {"browser", "browser-e"}});  // anything
  EXPECT_EQ(e->last("paired")["opponent"], "X");
  EXPECT_EQ(white->count("paired"), 1u) << "White was at the front";
  say(f, json::object{{"t", "seek"}, {"name", "F"}, {"browser", "browser-f"}});
  EXPECT_EQ(c->count("paired"), 1u) << "Black was not put in front";
  // Once only: White's second try waits at the back, behind Black.
  auto white_again = client("10.0.0.1");
  say(white_again, front("auto", pa["token"]));
  say(g, json::object{{"t", "seek"}, {"name", "G"}, {"browser", "browser-g"}});
  EXPECT_EQ(black->count("paired"), 1u);
  EXPECT_EQ(white_again->count("paired"), 0u);
}

// Nobody moves at all: White's 30 s run out and the game is called off.
TEST_F(Lobby, APairedGameWithNoMoveAtAllIsCalledOffForWhite) {
  auto [pa, pb, host, guest] = paired_and_seated("Silent", "Dara");
  clock_ += 31000;
  hub_->tick();  // the deferred check missed: the minute's tick calls it off
  EXPECT_EQ(guest->last("state")["reason"], "aborted");
  EXPECT_EQ(guest->last("party")["pairing"].as_object()["missing"], 0);
}

// A found opponent's live game has a clock (10 minutes and 5 s a move): each
// move takes its side's time and adds the increment; the side that runs out
// loses on time, told to both; a move then is too late.
TEST_F(Lobby, AFoundOpponentsGameHasAClockAndTheSideThatRunsOutLosesOnTime) {
  auto [pa, pb, host, guest] = paired_and_seated("Somchai", "Dara");
  json::object rules = host->last("party")["rules"].as_object();
  EXPECT_EQ(rules["clock"].as_object()["ms"], 600000);
  EXPECT_EQ(rules["clock"].as_object()["incrementMs"], 5000);
  json::object clock = host->last("state")["clock"].as_object();
  EXPECT_EQ(clock["running"], "w");
  EXPECT_EQ(clock["w"], 600000);
  const int64_t began = clock["since"].as_int64();
  clock_ += 3000;
  const int64_t moved_at = clock_;
  say(host, json::object{{"t", "move"}, {"move", "e3e4"}, {"v", 0}});
  clock = host->last("state")["clock"].as_object();
  EXPECT_EQ(clock["w"], 600000 - (moved_at - began) + 5000);
  EXPECT_EQ(clock["since"], moved_at);
  EXPECT_EQ(clock["running"], "b");
  say(guest, json::object{{"t", "move"}, {"move", "e6e5"}, {"v", 1}});
  ASSERT_EQ(guest->last("ack")["v"], 2);
  // White thinks for ever: its clock runs out; the deferred look ends the game.
  clock_ += 610000;
  flush();
  json::object state = guest->last("state");
  EXPECT_EQ(state["reason"], "time");
  EXPECT_EQ(state["result"], "0-1");
  EXPECT_EQ(state["clock"].as_object()["w"], 0);
  EXPECT_TRUE(state["clock"].as_object()["running"].is_null());
  say(host, json::object{{"t", "move"}, {"move", "d3d4"}, {"v", 3}});
  EXPECT_FALSE(host->last("error").empty());
}

// A move that comes after the flag time, before any look at the clock, is
// refused as too late, and the game ends on time at once.
TEST_F(Lobby, AMoveAfterTheFlagIsTooLateAndEndsTheGameOnTime) {
  auto [pa, pb, host, guest] = paired_and_seated("Somchai", "Dara");
  say(host, json::object{{"t", "move"}, {"move", "e3e4"}, {"v", 0}});
  clock_ += 700000;  // Black's ten minutes and more; no deferred look has run
  say(guest, json::object{{"t", "move"}, {"move", "e6e5"}, {"v", 1}});
  json::object error = guest->last("error");
  EXPECT_EQ(error["msg"], "time.up") << json::serialize(error);
  EXPECT_EQ(host->last("state")["reason"], "time");
  EXPECT_EQ(host->last("state")["result"], "1-0");
}

// One address is not paired with itself (two browsers there would make
// tables and games of their own); someone from elsewhere is paired with the
// one who waited longer. With --pair-same-address, they are paired.
TEST_F(Lobby, AnAddressIsNotPairedWithItself) {
  auto a = client("10.0.0.7"), b = client("10.0.0.7"), c = client("10.0.0.8");
  say(a, seekMsg("A", "browser-a"));
  say(b, seekMsg("B", "browser-b"));
  EXPECT_EQ(a->count("paired") + b->count("paired"), 0u);
  say(c, seekMsg("C", "browser-c"));
  EXPECT_EQ(a->count("paired"), 1u);
  EXPECT_EQ(c->last("paired")["opponent"], "A");
  HubLimits limits;
  limits.pair_same_address = true;
  set_limits(limits);
  auto d = client("10.0.0.7");
  say(d, seekMsg("D", "browser-d"));
  EXPECT_EQ(b->last("paired")["opponent"], "D");
}

}  // namespace
