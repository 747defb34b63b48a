// Tables on demand: the hub reads a table from the store when it is opened and
// drops it from memory when nobody has been at it for a while. A table that
// comes back is the same table; what the server must do unasked (the 45-day
// end, a CPU reply owed across a restart) comes from the store's queries.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "core/pgn.h"
#include "server/buses/bus.h"
#include "server/records/game_records.h"
#include "server/tables/hub.h"
#include "server/push/webpush.h"
#include "counting_store.h"
#include "fake_client.h"
#include "notices_beside.h"
#include "temp_db.h"
#include "temp_pg.h"

using namespace makruk;
using namespace makruk::server;
namespace json = boost::json;

namespace {

constexpr int64_t MINUTE = 60LL * 1000;
constexpr int64_t HOUR = 60 * MINUTE;
constexpr int64_t DAY = 24 * HOUR;
constexpr int64_t T0 = 1764460800000;  // 2025-11-30T00:00:00Z

using testing_helpers::body;
using testing_helpers::FakeClient;

// On each backend: SQLite, and PostgreSQL when the test command has started one.
class Tables : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      if (testing_helpers::TempPg::server().empty()) GTEST_SKIP() << "no PostgreSQL (MAKRUK_TEST_POSTGRES) to test on";
      pg_ = std::make_unique<testing_helpers::TempPg>();
    }
    open();
  }
  void TearDown() override {
    hub_.reset();
    notices_.reset();
    writer_.reset();
    store_.reset();
    pg_.reset();
    db_.clear();
  }
  // (Re)starts the hub on the same database, as a server restart would. The
  // hub's posted work (CPU replies) waits in a queue that run_posted() runs.
  void open() {
    hub_.reset();
    {
      std::lock_guard lock(mutex_);
      posted_.clear();  // work for the hub that has gone
    }
    store_.reset();
    store_ = pg_ ? open_postgres_store(pg_->url()) : open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, queued(), [this] { return clock_; });
    HubLimits limits;
    limits.cpu_pause = false;
    hub_->set_limits(limits);
    hub_->load();
    notices_ = notices_for(*store_, *hub_);
  }
  // Turn notifications beside a hub (pushes kept in pushes_), as the server
  // makes them.
  std::unique_ptr<testing_helpers::NoticesBeside> notices_for(Store& store, Hub& hub) {
    auto n = std::make_unique<testing_helpers::NoticesBeside>(
        store, [&hub](size_t) -> Hub& { return hub; }, [this] { return clock_; });
    n->notices.set_push("PUBLICKEY", [this](webpush::Delivery d) { pushes_.push_back(std::move(d)); }, false);
    n->attach(hub);
    return n;
  }
  // The games' records part, as the server makes it beside the hub.
  std::unique_ptr<GameRecords> made_records() {
    return std::make_unique<GameRecords>(
        *store_, [this](const std::string& ip, bool wrong) { return hub_->code_guess_allowed(ip, wrong); },
        "https://makruk.example");
  }
  // Work a hub posts to itself, kept in the queue that run_posted() runs.
  Hub::Post queued() {
    return [this](std::function<void()> f) {
      std::lock_guard lock(mutex_);
      posted_.push_back(std::move(f));
      cv_.notify_all();
    };
  }
  // Another instance on the same database: a store connection of its own.
  std::unique_ptr<Store> second_store() {
    return pg_ ? open_postgres_store(pg_->url()) : open_sqlite_store(db_.path());
  }
  // Its hub, whose posted work waits in the same queue (or runs at once, or
  // is lost: an instance that dies); with a bus when one is given.
  enum class Posts { Queued, AtOnce, Lost };
  std::unique_ptr<Hub> second_hub(Store& store, Posts posts, Bus* bus = nullptr) {
    Hub::Post post = posts == Posts::Queued   ? queued()
                     : posts == Posts::AtOnce ? Hub::Post([](std::function<void()> f) { f(); })
                                              : Hub::Post([](std::function<void()>) {});
    auto hub = std::make_unique<Hub>(store, std::move(post), [this] { return clock_; });
    if (bus) hub->set_bus(bus);
    hub->load();
    return hub;
  }
  // The hub writes through a writer of its own, as the server runs it, whose
  // answers come through the posted queue (run_posted_until); the table's
  // game is started through it. Returned so that a test may hold its lane.
  StoreWriter& start_with_writer(const std::shared_ptr<FakeClient>& host) {
    std::vector<std::unique_ptr<Store>> lanes;
    lanes.push_back(second_store());
    writer_ = std::make_unique<StoreWriter>(std::move(lanes), queued());
    hub_->set_writer(writer_.get());
    hub_->on_message(host, R"({"t":"start","id":"s"})");
    EXPECT_TRUE(host->last("ack").empty()) << "acknowledged before it is stored";
    EXPECT_TRUE(run_posted_until([&] { return !host->last("ack").empty(); }));
    return *writer_;
  }
  // A hub whose own store connection counts what it is asked, writing (and
  // reading tables) through a lane of its own, as the server runs it.
  struct CountedHub {
    explicit CountedHub(Store& store) : counted(store) {}
    testing_helpers::CountingStore counted;
    std::unique_ptr<StoreWriter> writer;
    std::unique_ptr<Hub> hub;
  };
  std::unique_ptr<CountedHub> with_counted_store() {
    auto h = std::make_unique<CountedHub>(*store_);
    h->hub = std::make_unique<Hub>(h->counted, queued(), [this] { return clock_; });
    h->hub->load();
    std::vector<std::unique_ptr<Store>> lanes;
    lanes.push_back(second_store());
    h->writer = std::make_unique<StoreWriter>(std::move(lanes), queued());
    h->hub->set_writer(h->writer.get());
    return h;
  }
  // The Redis of the test command, or nothing (the test is then skipped).
  static const char* redis() { return std::getenv("MAKRUK_TEST_REDIS"); }
  // hub_ and another instance on the same database, each with its own
  // connection to the Redis bus; the other's hub is returned (its store and
  // bus are kept here and outlive it).
  std::unique_ptr<Hub> with_bus_and_another_instance(Posts posts) {
    hub_bus_ = open_redis_bus(redis());
    hub_->set_bus(hub_bus_.get());
    other_bus_ = open_redis_bus(redis());
    other_store_ = second_store();
    return second_hub(*other_store_, posts, other_bus_.get());
  }

  // A hub's lobby with the hub's bus, as the server makes it: its executor
  // the posted queue, the hub's work done at once (as on one thread).
  Lobby& lobby_of(Hub& hub, Bus* bus) {
    lobbies_.push_back(std::make_unique<Lobby>(
        Hub::lobby_tables(hub, 1, [&hub](size_t, std::function<void(Hub&)> work) { work(hub); }),
        [this] { return clock_; }, queued()));
    Lobby& lobby = *lobbies_.back();
    lobby.set_limits(hub.limits().lobby());
    lobby.set_bus(bus);
    hub.set_lobby(&lobby);
    return lobby;
  }

  // Runs posted work until `done` holds (false after 30 s without it).
  bool run_posted_until(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
      std::function<void()> f;
      {
        std::unique_lock lock(mutex_);
        if (!cv_.wait_until(lock, deadline, [&] { return !posted_.empty(); })) return false;
        f = std::move(posted_.front());
        posted_.pop_front();
      }
      f();
    }
    return true;
  }

  // An address of this test alone, ending in `last`: with a bus, the limits
  // per address count in Redis, which every test of the run shares.
  static std::string fresh_ip(int last = 4) {
    std::random_device random;
    return "10." + std::to_string(random() % 250) + "." + std::to_string(random() % 250) + "." + std::to_string(last);
  }
  std::string table(const std::string& extra = "") {
    const std::string ip = fresh_ip();
    const std::string net = ip.substr(0, ip.rfind('.') + 1);
    auto r = body(hub_->create_table(R"({"name":"Somchai")" + extra + "}", net + "4"));
    EXPECT_TRUE(r.contains("code")) << json::serialize(r);
    code_ = std::string(r["code"].as_string());
    host_ = std::string(r["token"].as_string());
    if (!r["party"].as_object()["cpu"].is_null()) return code_;
    auto j = body(hub_->join(code_, R"({"name":"Dara"})", net + "5"));
    guest_ = std::string(j["token"].as_string());
    return code_;
  }
  std::shared_ptr<FakeClient> connect(const std::string& token) {
    auto c = std::make_shared<FakeClient>();
    c->ip = "1.2.3.4";
    hub_->on_message(c, R"({"t":"hello","code":")" + code_ + R"(","token":")" + token + "\"}");
    return c;
  }
  json::object say(const std::shared_ptr<FakeClient>& c, const std::string& msg) {
    return testing_helpers::answer_to(*hub_, c, msg);
  }
  json::object move(const std::shared_ptr<FakeClient>& c, const std::string& m, int v) {
    return say(c, R"({"t":"move","move":")" + m + R"(","v":)" + std::to_string(v) + "}");
  }
  json::object party() { return body(hub_->get_table(code_, "1.2.3.4"))["party"].as_object(); }
  // The guest's browser subscribes to Web Push for the table; what it came to.
  Outcome subscribe_guest() {
    webpush::KeyPair ua = webpush::KeyPair::generate();
    json::object keys{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                      {"auth", webpush::b64url_encode("0123456789abcdef")}};
    json::object req{{"subscription", json::object{{"endpoint", "https://push.example.net/guest"}, {"keys", keys}}},
                     {"lang", "en"},
                     {"tables", json::array{json::object{{"code", code_}, {"token", guest_}}}}};
    return notices_->subscribe(json::serialize(req), "1.2.3.4").outcome;
  }
  // The table's state as a new connection gets it.
  json::object state(const std::string& token) {
    auto c = connect(token);
    hub_->on_close(c);
    return c->last("state");
  }
  void leave(std::initializer_list<std::shared_ptr<FakeClient>> clients) {
    for (const auto& c : clients) hub_->on_close(c);
  }
  // Lets the table's idle time pass and runs the minute's tick.
  void idle() {
    run_ready();
    clock_ += hub_->limits().table_idle_ms;
    hub_->tick();
  }
  // Runs the posted work that is there now (presence updates, say).
  void run_ready() {
    for (;;) {
      std::function<void()> f;
      {
        std::lock_guard lock(mutex_);
        if (posted_.empty()) return;
        f = std::move(posted_.front());
        posted_.pop_front();
      }
      f();
    }
  }

  testing_helpers::TempDb db_{"makruk-tables"};
  std::unique_ptr<testing_helpers::TempPg> pg_;
  std::unique_ptr<Store> store_;
  std::vector<std::unique_ptr<Lobby>> lobbies_;  // the lobbies of a test's hubs (they outlive the buses)
  std::unique_ptr<Bus> hub_bus_;  // the bus of hub_, when a test gives it one (it outlives the hub)
  std::unique_ptr<Store> other_store_;  // another instance's
  std::unique_ptr<Bus> other_bus_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<StoreWriter> writer_;  // hub_'s, when a test gives it one
  int64_t clock_ = T0;
  std::vector<webpush::Delivery> pushes_;
  std::unique_ptr<testing_helpers::NoticesBeside> notices_;
  std::string code_, host_, guest_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> posted_;
};

}  // namespace

TEST_P(Tables, ATableDroppedFromMemoryAndOpenedAgainIsIdentical) {
  table(R"(,"counting":"declare","fen":"8/8/4k3/8/8/2R5/8/3K4 w - - 0 1","swapColors":false)");
  auto host = connect(host_), guest = connect(guest_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_EQ(say(guest, R"({"t":"count","v":0})")["t"].as_string(), "ack");
  ASSERT_EQ(move(host, "c3c4", 1)["t"].as_string(), "ack");
  ASSERT_EQ(move(guest, "e6e5", 2)["t"].as_string(), "ack");
  ASSERT_EQ(say(host, R"({"t":"offer-draw","v":3})")["t"].as_string(), "ack");
  leave({host, guest});
  const json::object before = state(host_);
  const json::object partyBefore = party();
  ASSERT_FALSE(before.at("count").is_null());
  EXPECT_EQ(before.at("count").at("n").as_int64(), 4);

  // Someone is still at the table: it stays.
  auto watcher = std::make_shared<FakeClient>();
  watcher->ip = "1.2.3.9";
  hub_->on_message(watcher, R"({"t":"hello","code":")" + code_ + "\"}");
  idle();
  EXPECT_EQ(hub_->table_count(), 1u);
  leave({watcher});
  run_ready();
  clock_ += MINUTE;
  hub_->tick();
  EXPECT_EQ(hub_->table_count(), 1u) << "dropped before its idle time";
  idle();
  EXPECT_EQ(hub_->table_count(), 0u) << "nobody there for its idle time: out of memory";

  // Opened again: the same moves, count, draw offer, seats and rules.
  EXPECT_EQ(json::serialize(party()), json::serialize(partyBefore));
  EXPECT_EQ(hub_->table_count(), 1u);
  EXPECT_EQ(json::serialize(state(guest_)), json::serialize(before));
  // And it plays on: the draw offer is declined, the game goes on with its count.
  auto again = connect(guest_);
  EXPECT_EQ(say(again, R"({"t":"decline-draw","v":4})")["t"].as_string(), "ack");
  auto host2 = connect(host_);
  EXPECT_EQ(move(host2, "c4c5", 5)["t"].as_string(), "ack");
  const json::object after = state(host_);
  EXPECT_EQ(after.at("v").as_int64(), 6);
  EXPECT_EQ(after.at("count").at("side").as_string(), "b");
  EXPECT_EQ(after.at("san").as_array().size(), 3u);
}

// A table with a clock (the house rule, chosen at creation): the clocks are
// the same after the table leaves memory and is read again, and the game
// ends on time once read; clocks the rules do not allow are refused.
TEST_P(Tables, AClockedTableKeepsItsClocksOutOfMemoryAndEndsOnTime) {
  table(R"(,"clock":{"minutes":5,"increment":3})");
  EXPECT_EQ(json::serialize(party()["rules"].as_object()["clock"]), R"({"ms":300000,"incrementMs":3000})");
  auto host = connect(host_), guest = connect(guest_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  clock_ += 2000;
  ASSERT_EQ(move(host, "e3e4", 0)["t"].as_string(), "ack");
  clock_ += 1000;
  ASSERT_EQ(move(guest, "e6e5", 1)["t"].as_string(), "ack");
  const json::object before = state(host_);
  EXPECT_EQ(json::serialize(before.at("clock")),
            json::serialize(json::object{{"w", 300000 - 2000 + 3000}, {"b", 300000 - 1000 + 3000},
                                         {"since", clock_}, {"running", "w"}}));
  leave({host, guest});
  idle();
  idle();
  EXPECT_EQ(hub_->table_count(), 0u);
  // Read again: White's five minutes ran out meanwhile; the tick ends the game on time.
  const json::object back = state(guest_);
  EXPECT_EQ(back.at("clock").at("w"), before.at("clock").at("w"));
  EXPECT_EQ(back.at("clock").at("since"), before.at("clock").at("since"));
  hub_->tick();
  run_ready();
  const json::object ended = state(guest_);
  EXPECT_EQ(ended.at("reason"), "time");
  EXPECT_EQ(ended.at("result"), "0-1");

  for (const char* bad : {R"("clock":{"minutes":0})", R"("clock":{"minutes":181})", R"("clock":{"minutes":5,"increment":61})",
                          R"("clock":5)", R"("clock":{"increment":5})", R"("clock":{"minutes":"5"})"}) {
    auto r = hub_->create_table(std::string(R"({"name":"Somchai",)") + bad + "}", fresh_ip());
    EXPECT_EQ(r.outcome, Outcome::BadRequest) << bad;
    EXPECT_EQ(body(r)["msg"], "table.clock") << bad;
  }
  auto turn = hub_->create_table(R"({"name":"Somchai","mode":"turn","clock":{"minutes":5,"increment":0}})", fresh_ip());
  EXPECT_EQ(body(turn)["msg"], "table.clock-turn-based");
  auto none = body(hub_->create_table(R"({"name":"Somchai","clock":null})", fresh_ip()));
  EXPECT_TRUE(none["party"].as_object()["rules"].as_object()["clock"].is_null());
}

// Every game has its own link: the JSON and PGN of a finished game stay the
// same after a rematch, a restart and the table leaving memory; unknown ids
// are guesses.
TEST_P(Tables, EachGameHasItsOwnLinkWithItsMovesAndPgn) {
  table();
  auto host = connect(host_), guest = connect(guest_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  const char* mate[] = {"b1d2", "b8d7", "d2c4", "g8e7", "c4d6"};
  for (int v = 0; v < 5; ++v) ASSERT_EQ(move(v % 2 ? guest : host, mate[v], v)["t"].as_string(), "ack") << v;
  const std::string id(host->last("state").at("gameId").as_string());
  ASSERT_EQ(id.size(), 12u);
  auto records = made_records();
  auto record = [&](const std::string& which) {
    Answer r = records->record(which, "1.2.3.9", false);
    EXPECT_EQ(r.outcome, Outcome::Ok) << r.body;
    return r.outcome == Outcome::Ok ? body(r)["game"].as_object() : json::object{};
  };
  const json::object first = record(id);
  EXPECT_EQ(first.at("white").as_string(), "Somchai");
  EXPECT_EQ(first.at("black").as_string(), "Dara");
  EXPECT_EQ(first.at("result").as_string(), "1-0");
  EXPECT_EQ(first.at("reason").as_string(), "checkmate");
  EXPECT_EQ(json::serialize(first.at("san")), R"(["Nd2","Nd7","Nc4","Ne7","Nxd6#"])");
  EXPECT_EQ(first.at("moves").as_array().size(), 5u);
  Answer pgn = records->record(id, "1.2.3.9", true);
  ASSERT_EQ(pgn.outcome, Outcome::Ok);
  EXPECT_EQ(pgn.type, "application/x-chess-pgn; charset=utf-8");
  EXPECT_NE(pgn.body.find("[Site \"https://makruk.example/g/" + id + "\"]"), std::string::npos) << pgn.body;
  EXPECT_NE(pgn.body.find("[White \"Somchai\"]\n[Black \"Dara\"]"), std::string::npos) << pgn.body;
  EXPECT_EQ(pgn.body, first.at("pgn").as_string());
  std::string error;
  auto back = read_pgn(pgn.body, Variant::Ouk, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(json::serialize(json::value_from(back->moves)), json::serialize(first.at("moves")));
  // A rematch is another game with another link; the first stays as it was.
  ASSERT_EQ(say(guest, R"({"t":"rematch"})")["t"].as_string(), "ack");
  ASSERT_EQ(say(host, R"({"t":"rematch"})")["t"].as_string(), "ack");
  const std::string second(host->last("state").at("gameId").as_string());
  EXPECT_NE(second, id);
  EXPECT_EQ(record(second).at("result").as_string(), "*");
  EXPECT_EQ(record(second).at("white").as_string(), "Dara");
  leave({host, guest});
  idle();
  open();  // a restart
  records = made_records();
  EXPECT_EQ(json::serialize(record(id)), json::serialize(first));
  // Unknown ids: not found, and guesses count like wrong codes.
  EXPECT_EQ(records->record("000000000000", "1.2.3.8", false).outcome, Outcome::NotFound);
  EXPECT_EQ(records->record(std::string(100, 'a'), "1.2.3.8", true).outcome, Outcome::NotFound);
  for (int i = 0; i < 8; ++i) records->record("x" + std::to_string(i), "1.2.3.8", false);
  EXPECT_EQ(records->record("y", "1.2.3.8", false).outcome, Outcome::RateLimited);
  EXPECT_EQ(records->record(id, "1.2.3.8", false).outcome, Outcome::Ok) << "a game's own id always opens";
  EXPECT_EQ(hub_->get_table("ZZZZZZ", "1.2.3.8").outcome, Outcome::RateLimited) << "the same limit as the tables' codes";
}

// A game's record is made once per version of the game: asked again, it is
// not made again (nor the game read again); a move makes it anew; several
// asking at once make it once.
TEST_P(Tables, AGamesRecordIsMadeOncePerVersion) {
  table();
  auto host = connect(host_), guest = connect(guest_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_EQ(move(host, "e3e4", 0)["t"].as_string(), "ack");
  const std::string id(host->last("state").at("gameId").as_string());
  testing_helpers::CountingStore counted(*store_);
  GameRecords records(counted, [this](const std::string& ip, bool wrong) { return hub_->code_guess_allowed(ip, wrong); },
                      "https://makruk.example");
  auto moves_in = [&](const Answer& r) { return body(r)["game"].at("moves").as_array().size(); };
  EXPECT_EQ(moves_in(records.record(id, "1.2.3.9", false)), 1u);
  EXPECT_EQ(records.record(id, "1.2.3.9", true).outcome, Outcome::Ok);
  ASSERT_TRUE(std::holds_alternative<GameSnapshot>(records.snapshot(id, "1.2.3.9")));
  EXPECT_EQ(records.made(), 1u);
  EXPECT_EQ(counted.game_loads.load(), 1);
  ASSERT_EQ(move(guest, "e6e5", 1)["t"].as_string(), "ack");
  EXPECT_EQ(moves_in(records.record(id, "1.2.3.9", false)), 2u) << "a move makes a new version";
  EXPECT_EQ(std::get<GameSnapshot>(records.snapshot(id, "1.2.3.9")).last_move, "e6e5");
  EXPECT_EQ(records.made(), 2u);
  // Several threads at once, for a version not made yet: made once.
  ASSERT_EQ(move(host, "b1d2", 2)["t"].as_string(), "ack");
  std::vector<std::thread> askers;
  std::atomic<int> ok{0};
  for (int i = 0; i < 6; ++i)
    askers.emplace_back([&] {
      if (records.record(id, "1.2.3.9", false).outcome == Outcome::Ok) ++ok;
    });
  for (auto& t : askers) t.join();
  EXPECT_EQ(ok.load(), 6);
  EXPECT_EQ(records.made(), 3u);
  EXPECT_EQ(counted.game_loads.load(), 3);
}

TEST_P(Tables, ALiveTableLeftEndsAfterItsIdleTimeEvenWhenOutOfMemory) {
  table();
  auto host = connect(host_), guest = connect(guest_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_EQ(move(host, "e3e4", 0)["t"].as_string(), "ack");
  clock_ += 2 * HOUR;  // both stay a while without a move, then leave
  leave({host, guest});
  const int64_t left = clock_;
  idle();
  ASSERT_EQ(hub_->table_count(), 0u);

  // A day after the last move, but not after they left: still playing.
  clock_ = left + hub_->limits().live_idle_ms - MINUTE;
  EXPECT_EQ(party()["status"].as_string(), "playing");
  idle();
  ASSERT_EQ(hub_->table_count(), 0u);
  // A server restart keeps when they left.
  open();
  clock_ = left + hub_->limits().live_idle_ms + 1;
  EXPECT_EQ(party()["status"].as_string(), "expired");
  EXPECT_EQ(state(host_)["reason"].as_string(), "expired");
}

TEST_P(Tables, TurnBasedTablesOutOfMemoryEndAfter45DaysOnceWithOnePush) {
  table(R"(,"mode":"turn")");
  auto host = connect(host_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  leave({host});
  // A subscription made while the table is in memory, used after it was dropped.
  ASSERT_EQ(subscribe_guest(), Outcome::Ok);
  idle();
  ASSERT_EQ(hub_->table_count(), 0u);
  open();  // and a restart between
  run_ready();
  clock_ = T0 + 45 * DAY - MINUTE;
  hub_->tick();
  EXPECT_EQ(pushes_.size(), 0u);
  EXPECT_EQ(hub_->table_count(), 0u) << "not due: not opened";
  clock_ = T0 + 45 * DAY + MINUTE;
  hub_->tick();
  ASSERT_EQ(pushes_.size(), 1u);
  EXPECT_EQ(json::parse(pushes_[0].payload).as_object()["kind"].as_string(), "expired");
  EXPECT_EQ(pushes_[0].to.endpoint, "https://push.example.net/guest");
  idle();
  idle();
  EXPECT_EQ(pushes_.size(), 1u) << "ended once";
  EXPECT_EQ(hub_->table_count(), 0u);
  EXPECT_EQ(party()["status"].as_string(), "expired");
}

TEST_P(Tables, ACpuReplyOwedWhenTheServerStoppedComesAfterTheRestart) {
  table(R"(,"cpu":1)");
  auto player = connect(host_);
  ASSERT_EQ(move(player, "e3e4", 0)["t"].as_string(), "ack");
  // The server stops before the CPU's reply is played (the reply is lost
  // with it), and starts again with nobody connected.
  open();
  EXPECT_EQ(hub_->table_count(), 1u) << "the table where the CPU owes a reply is opened at start";
  ASSERT_TRUE(run_posted_until([&] { return hub_->table_count() == 1 && party()["status"].as_string() == "playing" &&
                                            state(host_)["v"].as_int64() == 2; }));
  EXPECT_EQ(state(host_)["moves"].as_array().size(), 2u);
  // Nothing is owed now: a restart opens nothing.
  player = connect(host_);
  leave({player});
  open();
  EXPECT_EQ(hub_->table_count(), 0u);
}

namespace {

// Applies an event to a state, as the web client does.
json::object apply_event(json::object state, const json::object& e) {
  EXPECT_EQ(e.at("from").as_int64(), state.at("v").as_int64());
  json::array moves = state.at("moves").as_array(), san = state.at("san").as_array(),
              thai = state.at("sanThai").as_array();
  for (const auto& a : e.at("actions").as_array()) {
    std::string s(a.as_string());
    if (s.find(':') == std::string::npos && s != "expire") moves.push_back(a);
  }
  for (const auto& x : e.at("san").as_array()) san.push_back(x);
  for (const auto& x : e.at("sanThai").as_array()) thai.push_back(x);
  json::object out = e;
  out.erase("from");
  out.erase("actions");
  out["t"] = "state";
  out["moves"] = moves;
  out["san"] = san;
  out["sanThai"] = thai;
  if (const auto* id = state.if_contains("gameId")) out["gameId"] = *id;  // events leave the game's id out
  return out;
}

// The state a client taking events has, built from its first state and every event since.
json::object rebuilt(const FakeClient& c) {
  json::object s;
  for (const auto& m : c.sent) {
    if (m.at("t") == "state") s = m;
    else if (m.at("t") == "moved") s = apply_event(s, m);
  }
  return s;
}

// The same JSON, whatever the order of the keys.
std::string canonical(const json::value& v) {
  if (v.is_object()) {
    std::map<std::string, std::string> keys;
    for (const auto& [k, x] : v.as_object()) keys[std::string(k)] = canonical(x);
    std::string out = "{";
    for (const auto& [k, x] : keys) out += k + ":" + x + ",";
    return out + "}";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (const auto& x : v.as_array()) out += canonical(x) + ",";
    return out + "]";
  }
  return json::serialize(v);
}

}  // namespace

TEST_P(Tables, EventsRebuildTheWholeStateAndDoNotGrowWithTheGame) {
  table(R"(,"counting":"declare","fen":"8/8/4k3/8/8/2R5/8/3K4 w - - 0 1","swapColors":false)");
  auto host = connect(host_);  // whole states
  auto guest = std::make_shared<FakeClient>();
  guest->ip = "1.2.3.5";
  hub_->on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + guest_ + R"(","events":true})");
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_EQ(guest->count("state"), 1u) << "a new game comes whole";
  ASSERT_EQ(say(guest, R"({"t":"count","v":0})")["t"].as_string(), "ack");
  ASSERT_EQ(move(host, "c3c4", 1)["t"].as_string(), "ack");
  ASSERT_EQ(say(host, R"({"t":"offer-draw","v":2})")["t"].as_string(), "ack");
  ASSERT_EQ(say(guest, R"({"t":"decline-draw","v":3})")["t"].as_string(), "ack");
  // Black's king steps to and fro while White's walks on: no position repeats.
  const char* white[] = {"d1e1", "e1f1", "f1g1", "g1h1", "h1h2", "h2g2", "g2f2", "f2e2", "e2d2"};
  size_t sizeEarly = 0, sizeLate = 0;
  for (int i = 0; host->last("state").at("result").as_string() == "*" && i < 18; ++i) {
    auto& mover = i % 2 == 0 ? guest : host;
    int v = int(host->last("state").at("v").as_int64());
    const char* m = i % 2 == 1 ? white[i / 2] : i % 4 == 0 ? "e6f6" : "f6e6";
    ASSERT_EQ(move(mover, m, v)["t"].as_string(), "ack") << i;
    const auto& e = guest->sent.back();
    ASSERT_EQ(e.at("t").as_string(), "moved");
    if (i == 2) sizeEarly = json::serialize(e).size();
    if (i == 10) sizeLate = json::serialize(e).size();
    ASSERT_EQ(canonical(rebuilt(*guest)), canonical(host->last("state"))) << "after move " << i;
  }
  EXPECT_GE(host->last("state").at("moves").as_array().size(), 13u);
  // The same moves and count: an event's size does not grow with the moves played.
  EXPECT_GT(sizeEarly, 0u);
  EXPECT_LE(sizeLate, sizeEarly + 8) << "the count's and version's digits may grow, nothing else";
  EXPECT_EQ(guest->count("state"), 1u) << "no whole state after the first";
  // A resignation is an event too; a rematch is a new game: it comes whole.
  ASSERT_EQ(say(guest, R"({"t":"resign","v":)" + std::to_string(host->last("state").at("v").as_int64()) + "}")["t"].as_string(), "ack");
  EXPECT_EQ(guest->sent.back().at("t").as_string(), "moved");
  EXPECT_EQ(canonical(rebuilt(*guest)), canonical(host->last("state")));
  EXPECT_EQ(rebuilt(*guest).at("reason").as_string(), "resignation");
  ASSERT_EQ(say(host, R"({"t":"rematch"})")["t"].as_string(), "ack");
  ASSERT_EQ(say(guest, R"({"t":"rematch"})")["t"].as_string(), "ack");
  EXPECT_EQ(guest->count("state"), 2u);
  EXPECT_EQ(canonical(rebuilt(*guest)), canonical(host->last("state")));
  // A wrongly typed flag is refused.
  auto odd = std::make_shared<FakeClient>();
  hub_->on_message(odd, R"({"t":"hello","code":")" + code_ + R"(","events":"yes"})");
  EXPECT_EQ(odd->last("error").at("code").as_string(), "bad-request");
}

TEST_P(Tables, ACpuAnswerOfSeveralActionsComesAsOneEvent) {
  // Declaration mode, the CPU (Black) with a bare king against a rook: its
  // answers may start a count before moving (two actions in one event).
  table(R"(,"cpu":1,"counting":"declare","fen":"8/8/4k3/8/8/2R5/8/3K4 w - - 0 1")");
  auto player = std::make_shared<FakeClient>();
  player->ip = "1.2.3.4";
  hub_->on_message(player, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + R"(","events":true})");
  auto whole = connect(host_);
  const char* moves[] = {"c3c4", "c4c3", "c3c4", "c4c3"};
  for (const char* m : moves) {
    int v = int(whole->last("state").at("v").as_int64());
    if (whole->last("state").at("result").as_string() != "*") break;
    ASSERT_EQ(move(player, m, v)["t"].as_string(), "ack");
    ASSERT_TRUE(run_posted_until([&] {
      auto s = whole->last("state");
      return s.at("turn").as_string() == "w" || s.at("result").as_string() != "*";
    }));
    ASSERT_EQ(canonical(rebuilt(*player)), canonical(whole->last("state")));
  }
  bool several = false;
  for (const auto& m : player->sent)
    if (m.at("t") == "moved" && m.at("actions").as_array().size() > 1) several = true;
  EXPECT_TRUE(several) << "the CPU started its count and moved in one answer";
}

// Two instances on one database (without a bus between them yet): both take
// a move for the same turn. The store accepts one; the other instance answers
// `conflict`, reads the table again, and its players end on the same state.
// The hub as the server runs it, with a writer of its own: a table's actions
// are stored on the writer's thread while the hub goes on; what a table is
// sent meanwhile waits and follows in order; two moves at one version: the
// first wins, the second is refused; every watcher sees the versions in order.
TEST_P(Tables, ActionsStoredOffTheHubFollowEachOtherInOrder) {
  table();
  auto host = connect(host_), second = connect(host_), guest = connect(guest_), watcher = connect("");
  start_with_writer(host);  // the game's start is stored by the writer too
  ASSERT_EQ(watcher->last("state").at("v").as_int64(), 0);
  const size_t seen = watcher->sent.size();
  hub_->on_message(host, R"({"t":"move","move":"e3e4","v":0,"id":"1"})");
  hub_->on_message(second, R"({"t":"move","move":"d3d4","v":0,"id":"2"})");  // the same player's other browser
  hub_->on_message(guest, R"({"t":"move","move":"e6e5","v":1,"id":"3"})");
  hub_->on_message(guest, R"({"t":"offer-draw","v":2,"id":"4"})");
  EXPECT_TRUE(host->last("ack").empty() || host->last("ack").at("id").as_string() == "s") << "not acknowledged before it is stored";
  // Another table goes on meanwhile (its actions are not held by this one's).
  ASSERT_TRUE(run_posted_until([&] { return !guest->last("ack").empty() && guest->last("ack").at("id").as_string() == "4"; }));
  EXPECT_EQ(host->last("ack").at("id").as_string(), "1");
  EXPECT_EQ(host->last("ack").at("v").as_int64(), 1);
  EXPECT_EQ(second->last("error").at("id").as_string(), "2");
  EXPECT_EQ(second->last("error").at("code").as_string(), "conflict");
  EXPECT_EQ(guest->last("ack").at("v").as_int64(), 3);
  std::vector<int64_t> versions;
  for (size_t i = seen; i < watcher->sent.size(); ++i)
    if (watcher->sent[i].at("t").as_string() == "state") versions.push_back(watcher->sent[i].at("v").as_int64());
  EXPECT_EQ(versions, (std::vector<int64_t>{1, 2, 3}));
  auto back = store_->load_table(code_);
  ASSERT_EQ(back->games[0].actions.size(), 3u);
  EXPECT_EQ(back->games[0].actions[0].action, "e3e4");
  EXPECT_EQ(back->games[0].actions[1].action, "e6e5");
  EXPECT_EQ(back->games[0].actions[2].action, "offer:b");
  // A resignation, then a rematch offered (waiting behind it) and accepted:
  // the next game is stored by the writer as well.
  const std::string first_game(watcher->last("state").at("gameId").as_string());
  hub_->on_message(host, R"({"t":"resign","v":3,"id":"5"})");
  hub_->on_message(host, R"({"t":"rematch","id":"6"})");
  hub_->on_message(guest, R"({"t":"rematch","id":"7"})");
  ASSERT_TRUE(run_posted_until([&] { return !guest->last("ack").empty() && guest->last("ack").at("id").as_string() == "7"; }));
  EXPECT_EQ(host->last("ack").at("id").as_string(), "6");
  EXPECT_EQ(watcher->last("state").at("v").as_int64(), 0);
  EXPECT_NE(watcher->last("state").at("gameId").as_string(), first_game);
  EXPECT_EQ(store_->load_table(code_)->games.back().number, 2);  // the latest game
}

// While a table's move is being stored (the store slow), spectators flooding
// it with moves are refused at once and take no player's place; a player's
// own flood is capped per connection; the opponent's move still waits its
// turn and is taken.
TEST_P(Tables, AFloodWhileAMoveIsStoredTakesNoPlayersPlace) {
  table();
  auto host = connect(host_), second = connect(host_), guest = connect(guest_);
  StoreWriter& writer = start_with_writer(host);
  // The store is slow: the writer's lane is held until `release`.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  writer.submit(code_, [released](Store&) { released.wait(); }, [](std::exception_ptr) {});
  hub_->on_message(host, R"({"t":"move","move":"e3e4","v":0,"id":"m"})");
  std::vector<std::shared_ptr<FakeClient>> watchers;
  for (int i = 0; i < 10; ++i) {
    watchers.push_back(connect(""));
    for (int j = 0; j < 19; ++j) hub_->on_message(watchers.back(), R"({"t":"move","move":"d3d4","v":0})");
    EXPECT_EQ(watchers.back()->count("error"), 19u) << "a spectator is answered at once";
  }
  for (int j = 0; j < 19; ++j) hub_->on_message(second, R"({"t":"move","move":"d3d4","v":0})");
  EXPECT_EQ(second->count("error"), 19u - MAX_WAITING_PER_CONNECTION);
  hub_->on_message(guest, R"({"t":"move","move":"e6e5","v":1,"id":"g"})");
  EXPECT_TRUE(guest->last("error").empty());
  release.set_value();
  ASSERT_TRUE(run_posted_until([&] { return !guest->last("ack").empty(); }));
  EXPECT_EQ(host->last("ack").at("id").as_string(), "m");
  EXPECT_EQ(guest->last("ack").at("v").as_int64(), 2);
}

// The store refuses an action the hub prepared (another instance stored one
// at that version first): the mover is told, and the table is read again.
TEST_P(Tables, AnActionTheWriterCannotStoreIsRefusedAndTheTableReadAgain) {
  table();
  auto host = connect(host_), watcher = connect("");
  start_with_writer(host);
  // Another instance's move, straight into the store.
  auto other = second_store();
  other->append_action(store_->load_table(code_)->games[0].id, 0, "d3d4", clock_, false);
  hub_->on_message(host, R"({"t":"move","move":"e3e4","v":0,"id":"late"})");
  ASSERT_TRUE(run_posted_until([&] { return !host->last("error").empty(); }));
  EXPECT_EQ(host->last("error").at("id").as_string(), "late");
  EXPECT_EQ(host->last("error").at("code").as_string(), "conflict");
  ASSERT_TRUE(run_posted_until([&] { return !watcher->last("state").empty() && watcher->last("state").at("v").as_int64() == 1; }));
  EXPECT_EQ(watcher->last("state").at("moves").as_array().back().as_string(), "d3d4");
}

// PostgreSQL slowed: a join whose write waits on a lock that another
// connection holds (a slow statement on a loaded database) holds no move at
// another table. Making and joining tables are stored by the writer, so only
// that table's lane waits; the hub and the other lanes go on.
TEST_P(Tables, AJoinHeldByTheDatabaseHoldsNoMovesAtOtherTables) {
  if (!pg_) GTEST_SKIP() << "a row lock of PostgreSQL's";
  table();  // a table with both players (written at once, before the lanes)
  const std::string busy_code = code_;
  std::vector<std::unique_ptr<Store>> lanes;
  for (int i = 0; i < 2; ++i) lanes.push_back(second_store());
  writer_ = std::make_unique<StoreWriter>(std::move(lanes), queued());
  hub_->set_writer(writer_.get());
  // Asks the hub, and runs its posted work until it answers.
  auto asked = [&](const std::function<void(Hub::Respond)>& ask) {
    std::optional<Answer> answer;
    ask([&answer](Answer r) { answer = std::move(r); });
    EXPECT_TRUE(run_posted_until([&] { return answer.has_value(); }));
    return body(answer.value_or(Answer{Outcome::Internal, "{}"}));
  };
  // A table waiting for its guest, made through the writer, on the other lane.
  std::string waiting_code;
  for (int i = 0; i < 20 && (waiting_code.empty() || writer_->lane_of(waiting_code) == writer_->lane_of(busy_code)); ++i) {
    auto made = asked([&](Hub::Respond r) { hub_->create_table(R"({"name":"Malee"})", fresh_ip(), std::move(r)); });
    ASSERT_TRUE(made.contains("code")) << json::serialize(made);
    waiting_code = std::string(made["code"].as_string());
  }
  ASSERT_NE(writer_->lane_of(waiting_code), writer_->lane_of(busy_code));
  code_ = busy_code;
  auto host = connect(host_), guest = connect(guest_);
  hub_->on_message(host, R"({"t":"start","id":"s"})");
  ASSERT_TRUE(run_posted_until([&] { return !host->last("ack").empty(); }));
  // Another connection holds the waiting table's row: a seat's insert there
  // waits for it.
  PGconn* locker = PQconnectdb(pg_->url().c_str());
  ASSERT_EQ(PQstatus(locker), CONNECTION_OK);
  PQclear(PQexec(locker, "BEGIN"));
  PGresult* held = PQexec(locker, ("SELECT 1 FROM parties WHERE code = '" + waiting_code + "' FOR UPDATE").c_str());
  ASSERT_EQ(PQresultStatus(held), PGRES_TUPLES_OK);
  PQclear(held);
  std::optional<Answer> joined;
  hub_->join(waiting_code, R"({"name":"Dara"})", fresh_ip(), [&joined](Answer r) { joined = std::move(r); });
  // Moves at the other table are stored and acknowledged meanwhile.
  hub_->on_message(host, R"({"t":"move","move":"e3e4","v":0,"id":"1"})");
  ASSERT_TRUE(run_posted_until([&] { return host->last("ack").at("id") == "1"; }));
  hub_->on_message(guest, R"({"t":"move","move":"e6e5","v":1,"id":"2"})");
  ASSERT_TRUE(run_posted_until([&] { return !guest->last("ack").empty(); }));
  EXPECT_EQ(guest->last("ack").at("v").as_int64(), 2);
  EXPECT_FALSE(joined) << "the join waits for the row";
  PQclear(PQexec(locker, "ROLLBACK"));
  PQfinish(locker);
  ASSERT_TRUE(run_posted_until([&] { return joined.has_value(); }));
  EXPECT_EQ(joined->outcome, Outcome::Ok) << joined->body;
  EXPECT_EQ(store_->load_table(waiting_code)->seats.size(), 2u);
}

// Making and joining a table ask nothing of the hub's own store connection
// when a writer stores for it: no read of a code, no insert on its thread.
TEST_P(Tables, MakingAndJoiningATableWriteNothingOnTheHubsThread) {
  auto counted_hub = with_counted_store();
  testing_helpers::CountingStore& counted = counted_hub->counted;
  std::unique_ptr<Hub>& hub = counted_hub->hub;
  const size_t before = counted.calls();
  std::optional<Answer> made, joined;
  hub->create_table(R"({"name":"Somchai"})", "10.1.2.3", [&made](Answer r) { made = std::move(r); });
  EXPECT_FALSE(made) << "answered once stored";
  ASSERT_TRUE(run_posted_until([&] { return made.has_value(); }));
  ASSERT_EQ(made->outcome, Outcome::Created) << made->body;
  const std::string code(body(*made)["code"].as_string());
  hub->join(code, R"({"name":"Dara"})", "10.1.2.4", [&joined](Answer r) { joined = std::move(r); });
  ASSERT_TRUE(run_posted_until([&] { return joined.has_value(); }));
  EXPECT_EQ(joined->outcome, Outcome::Ok) << joined->body;
  EXPECT_EQ(counted.calls(), before) << "the hub's thread asked its store";
  EXPECT_EQ(store_->load_table(code)->seats.size(), 2u);
  hub.reset();
}

// A table not in memory is read on its writer's lane, not on the hub's
// thread: a hello waits for it (the connection's next message follows the
// hello), a lookup, My games or a QR code is answered once it is read, and
// the lookups of an unknown code at once share one read.
TEST_P(Tables, ATableNotInMemoryIsReadOffTheHubsThread) {
  table();  // in the store; the hub below has nothing in memory
  const std::string code = code_;
  auto counted_hub = with_counted_store();
  testing_helpers::CountingStore& counted = counted_hub->counted;
  std::unique_ptr<Hub>& hub = counted_hub->hub;
  const int loads = counted.loads;
  auto c = std::make_shared<FakeClient>();
  c->ip = "10.9.8.7";
  hub->on_message(c, R"({"t":"hello","code":")" + code + R"(","token":")" + host_ + "\"}");
  hub->on_message(c, R"({"t":"ping"})");
  EXPECT_TRUE(c->sent.empty()) << "the hello waits for its table";
  ASSERT_TRUE(run_posted_until([&] { return c->count("pong") == 1; }));
  EXPECT_EQ(c->sent.front().at("t").as_string(), "welcome");  // the ping followed the hello
  EXPECT_EQ(c->last("welcome").at("seat").as_int64(), 0);
  std::optional<Answer> found, unknown[2];
  hub->get_table(code, "10.9.8.6", "", "", [&found](Answer r) { found = std::move(r); });
  ASSERT_TRUE(found) << "in memory now: answered at once";
  EXPECT_EQ(found->outcome, Outcome::Ok);
  for (int i = 0; i < 2; ++i)
    hub->get_table("ZZZZZZ", "10.9.8." + std::to_string(i), "", "", [&unknown, i](Answer r) { unknown[i] = std::move(r); });
  EXPECT_FALSE(unknown[0]);
  ASSERT_TRUE(run_posted_until([&] { return unknown[0] && unknown[1]; }));
  EXPECT_EQ(unknown[0]->outcome, Outcome::NotFound);
  EXPECT_EQ(unknown[1]->outcome, Outcome::NotFound);
  // My games and the QR code read theirs the same way.
  table();  // another one in the store
  std::optional<Answer> games, qr;
  auto notices = notices_for(*store_, *hub);
  notices->notices.my_games(R"({"tables":[{"code":")" + code_ + R"(","token":")" + host_ + R"("},{"code":"WWWWWW","token":"t"}]})",
                "10.9.8.4", [&games](Answer r) { games = std::move(r); });
  hub->invite(code_, "https://makruk.example", "10.9.8.3", "", [&qr](InviteOrRefusal r) { qr = invite_qr(r); });
  EXPECT_FALSE(games);
  ASSERT_TRUE(run_posted_until([&] { return games && qr; }));
  ASSERT_EQ(games->outcome, Outcome::Ok) << games->body;
  EXPECT_EQ(body(*games)["games"].as_array().size(), 1u);
  EXPECT_EQ(body(*games)["unknown"].as_array(), json::array({"WWWWWW"}));
  EXPECT_EQ(qr->outcome, Outcome::Ok);
  EXPECT_EQ(counted.loads.load(), loads) << "a table was read on the hub's thread";
  // A connection that closes while its table is read says no hello.
  auto gone = std::make_shared<FakeClient>();
  gone->ip = "10.9.8.8";
  hub->on_message(gone, R"({"t":"hello","code":"YYYYYY"})");
  hub->on_close(gone);
  auto later = std::make_shared<FakeClient>();  // shares the read, and is answered after it
  later->ip = "10.9.8.9";
  hub->on_message(later, R"({"t":"hello","code":"YYYYYY"})");
  ASSERT_TRUE(run_posted_until([&] { return later->count("error") == 1; }));
  EXPECT_EQ(later->last("error").at("code").as_string(), "not-found");
  EXPECT_TRUE(gone->sent.empty());
  hub.reset();
}

// The minute's work, the health check and push subscriptions ask nothing of
// the hub's own store connection when a writer stores for it: a
// subscription is written and removed on the writer's lanes; turn-based
// tables whose 45 days have run out end, in memory or not (the store's list
// of them is asked on a lane too); an idle live table leaves memory once its
// leaving time is written; /readyz reads through the writer.
TEST_P(Tables, TheMinutesWorkHealthAndPushAskNothingOnTheHubsThread) {
  constexpr int64_t DAY = 24LL * 3600 * 1000;
  table(R"(,"mode":"turn")");  // in the store only, for the hub below: read when its time has run out
  const std::string out_of_memory = code_;
  table(R"(,"mode":"turn")");  // this one is played at the hub below
  auto counted_hub = with_counted_store();
  testing_helpers::CountingStore& counted = counted_hub->counted;
  Hub& hub = *counted_hub->hub;
  std::vector<webpush::Delivery> pushes;
  // Turn notifications write through a view of the same writer.
  StoreWriter notices_writer(*counted_hub->writer, queued());
  auto notices = notices_for(*store_, hub);
  notices->write_through(notices_writer);
  notices->notices.set_push("PUBLICKEY", [&pushes](webpush::Delivery d) { pushes.push_back(std::move(d)); }, false);
  const int before = counted.calls();
  auto answer = [&](auto ask) {
    std::optional<Answer> r;
    ask([&r](Answer reply) { r = std::move(reply); });
    EXPECT_TRUE(run_posted_until([&] { return r.has_value(); }));
    return r.value_or(Answer{});
  };
  // The guest's browser subscribes; the table is read, the subscription written, off the hub's thread.
  webpush::KeyPair ua = webpush::KeyPair::generate();
  const std::string subscription =
      json::serialize(json::object{{"subscription", json::object{{"endpoint", "https://push.example.net/guest"},
                                                                 {"keys", json::object{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                                                                                       {"auth", webpush::b64url_encode("0123456789abcdef")}}}}},
                                   {"tables", json::array{json::object{{"code", code_}, {"token", guest_}}}}});
  Answer subscribed = answer([&](Hub::Respond r) { notices->notices.subscribe(subscription, "10.7.7.7", std::move(r)); });
  ASSERT_EQ(subscribed.outcome, Outcome::Ok) << subscribed.body;
  EXPECT_EQ(body(subscribed)["subscribed"].as_array(), json::array({json::value(code_)}));
  EXPECT_EQ(store_->load_subscriptions(code_).size(), 1u);
  // The host starts and moves: the guest's browser is told.
  auto host = std::make_shared<FakeClient>();
  host->ip = "10.7.7.8";
  hub.on_message(host, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + "\"}");
  hub.on_message(host, R"({"t":"start","id":"s"})");
  ASSERT_TRUE(run_posted_until([&] { return !host->last("ack").empty(); }));
  hub.on_message(host, R"({"t":"move","id":"m","move":"e3e4","v":0})");
  ASSERT_TRUE(run_posted_until([&] { return !pushes.empty(); }));
  EXPECT_EQ(json::parse(pushes.back().payload).as_object()["kind"].as_string(), "turn");
  // A live table left by its player, at the same hub.
  table();
  const std::string live = code_;
  auto player = std::make_shared<FakeClient>();
  player->ip = "10.7.7.9";
  hub.on_message(player, R"({"t":"hello","code":")" + live + R"(","token":")" + host_ + "\"}");
  ASSERT_TRUE(run_posted_until([&] { return !player->last("welcome").empty(); }));
  hub.on_close(player);
  const int64_t left = clock_;
  ASSERT_EQ(hub.table_count(), 2u);
  // Its idle time on, it leaves memory once the store has when it was left.
  run_ready();  // who is there, told
  clock_ += hub.limits().table_idle_ms;
  hub.tick();
  ASSERT_TRUE(run_posted_until([&] { return hub.table_count() == 1; }));
  EXPECT_EQ(store_->load_table(live)->party.left_at, left);
  EXPECT_EQ(store_->load_table(live)->party.expired_at, 0);
  // 45 days on: the turn-based tables end, in memory or not.
  clock_ += 45 * DAY;
  hub.tick();
  ASSERT_TRUE(run_posted_until([&] {
    return host->last("party").contains("status") && host->last("party").at("status") == "expired" &&
           store_->load_table(out_of_memory)->party.expired_at != 0 && pushes.size() == 2;
  }));
  EXPECT_EQ(json::parse(pushes.back().payload).as_object()["kind"].as_string(), "expired");
  // The subscription goes; the store answers the health check.
  Answer removed = answer([&](Hub::Respond r) {
    notices->notices.unsubscribe(R"({"endpoint":"https://push.example.net/guest"})", std::move(r));
  });
  EXPECT_EQ(removed.body, R"({"removed":1})");
  EXPECT_EQ(answer([&](Hub::Respond r) { hub.ready(std::move(r)); }).outcome, Outcome::Ok);
  EXPECT_EQ(counted.calls(), before) << "the hub's thread asked its store";
  counted_hub->hub.reset();
}

TEST_P(Tables, ConflictingMovesOnTwoInstancesOneWinsTheOtherCatchesUp) {
  table();
  auto host = connect(host_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  auto otherStore = second_store();
  auto otherHub = second_hub(*otherStore, Posts::AtOnce);
  Hub& other = *otherHub;
  // The same player's second browser reaches the other instance.
  auto there = std::make_shared<FakeClient>();
  there->ip = "1.2.3.4";
  other.on_message(there, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + R"(","events":true})");
  ASSERT_EQ(there->last("state").at("v").as_int64(), 0);
  auto watcher = std::make_shared<FakeClient>();
  other.on_message(watcher, R"({"t":"hello","code":")" + code_ + "\"}");

  EXPECT_EQ(move(host, "e3e4", 0)["t"].as_string(), "ack");
  other.on_message(there, R"({"t":"move","move":"d3d4","v":0,"id":"x"})");
  const json::object refused = there->last("error");
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(refused.at("code").as_string(), "conflict");
  // The other instance read the table again: its clients have the winning move.
  EXPECT_EQ(canonical(rebuilt(*there)), canonical(state(host_)));
  EXPECT_EQ(watcher->last("state").at("moves").as_array().back().as_string(), "e3e4");
  // And it plays on from there: the guest answers on the other instance.
  auto guest = std::make_shared<FakeClient>();
  other.on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + guest_ + "\"}");
  other.on_message(guest, R"({"t":"move","move":"e6e5","v":1,"id":"g"})");
  EXPECT_EQ(guest->last("ack").at("v").as_int64(), 2);
  auto back = store_->load_table(code_);
  ASSERT_EQ(back->games[0].actions.size(), 2u);
  EXPECT_EQ(back->games[0].actions[0].action, "e3e4");
  EXPECT_EQ(back->games[0].actions[1].action, "e6e5");
}

// Two instances hold the same turn-based table (its game over, nothing to
// append); both find its 45 days over at their tick: it ends once, with one
// push, and the slower instance learns it from the store.
TEST_P(Tables, TwoInstancesEndATurnBasedTableOnce) {
  table(R"(,"mode":"turn")");
  auto host = connect(host_);
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_EQ(say(host, R"({"t":"resign","v":0})")["t"].as_string(), "ack");
  ASSERT_EQ(subscribe_guest(), Outcome::Ok);
  auto otherStore = second_store();
  auto otherHub = second_hub(*otherStore, Posts::AtOnce);
  Hub& other = *otherHub;
  auto other_notices = notices_for(*otherStore, other);
  auto watcher = std::make_shared<FakeClient>();
  other.on_message(watcher, R"({"t":"hello","code":")" + code_ + "\"}");  // in memory there too
  clock_ += 45 * DAY + MINUTE;
  hub_->tick();
  other.tick();
  ASSERT_EQ(pushes_.size(), 1u) << "one end, one push";
  EXPECT_EQ(json::parse(pushes_[0].payload).as_object()["kind"].as_string(), "expired");
  EXPECT_EQ(watcher->last("party").at("status").as_string(), "expired") << "the other instance read the end";
}

// Two instances on one store with a Redis bus between them (the test command
// starts Redis: MAKRUK_TEST_REDIS): the players sit at different instances,
// with a spectator at the second; every change made at one reaches the other's
// clients, in order, and both sides hold the same game.
TEST_P(Tables, ABusCarriesEveryChangeToTheOtherInstance) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);

  table();
  auto host = std::make_shared<FakeClient>();
  host->ip = "1.2.3.4";
  hub_->on_message(host, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + R"(","events":true})");
  auto guest = std::make_shared<FakeClient>(), watcher = std::make_shared<FakeClient>();
  guest->ip = watcher->ip = "1.2.3.5";
  other->on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + guest_ + R"(","events":true})");
  other->on_message(watcher, R"({"t":"hello","code":")" + code_ + "\"}");
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_TRUE(run_posted_until([&] { return !guest->last("state").empty(); })) << "the start reached the other instance";

  const char* moves[] = {"e3e4", "d6d5", "e4d5", "c6c5", "a3a4"};
  for (int v = 0; v < 5; ++v) {
    auto& mover = v % 2 == 0 ? host : guest;
    Hub& at = v % 2 == 0 ? *hub_ : *other;
    at.on_message(mover, std::string(R"({"t":"move","move":")") + moves[v] + R"(","v":)" + std::to_string(v) + "}");
    ASSERT_TRUE(run_posted_until([&] {
      auto h = rebuilt(*host), g = rebuilt(*guest);
      return h.at("v").as_int64() == v + 1 && g.at("v").as_int64() == v + 1;
    })) << "move " << v + 1 << " on both instances";
    EXPECT_EQ(canonical(rebuilt(*host)), canonical(rebuilt(*guest)));
  }
  ASSERT_TRUE(run_posted_until([&] { return watcher->last("state").at("v").as_int64() == 5; }));
  EXPECT_EQ(watcher->last("state").at("san").as_array().back().as_string(), "a4");
  // The guest resigns on its instance; the host's sees the game over.
  other->on_message(guest, R"({"t":"resign","v":5})");
  ASSERT_TRUE(run_posted_until([&] { return rebuilt(*host).at("result").as_string() == "1-0"; }));
  other.reset();
}

// A guest joins at one instance and says hello at the other before the join's
// message has come there: the seat is found in the store, not refused.
TEST_P(Tables, ASeatTakenAtAnotherInstanceAMomentAgoIsKnownAtOnce) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);
  const std::string ip = fresh_ip();
  auto r = body(hub_->create_table(R"({"name":"Somchai"})", ip));
  code_ = std::string(r["code"].as_string());
  auto host = connect(std::string(r["token"].as_string()));  // hub_ holds the table, one seat
  auto j = body(other->join(code_, R"({"name":"Dara"})", ip));
  ASSERT_TRUE(j.contains("token")) << json::serialize(j);
  // (the join's message waits, unread, in hub_'s queue)
  auto guest = std::make_shared<FakeClient>();
  guest->ip = ip;
  hub_->on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + std::string(j["token"].as_string()) +
                              "\"}");
  ASSERT_EQ(guest->count("welcome"), 1u) << json::serialize(guest->last("error"));
  EXPECT_EQ(guest->last("welcome").at("seat").as_int64(), 1);
  EXPECT_EQ(host->last("party").at("players").as_array().size(), 2u) << "the host sees the guest too";
  run_ready();
  other.reset();
}

// The host presses Start a moment after the guest joined at another instance,
// before the join's message has come: the game starts all the same.
TEST_P(Tables, StartRightAfterAJoinAtAnotherInstanceStartsTheGame) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);
  const std::string ip = fresh_ip();
  auto r = body(hub_->create_table(R"({"name":"Somchai"})", ip));
  code_ = std::string(r["code"].as_string());
  auto host = connect(std::string(r["token"].as_string()));
  ASSERT_TRUE(body(other->join(code_, R"({"name":"Dara"})", ip)).contains("token"));
  // (the join's message waits, unread, in hub_'s queue)
  EXPECT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  EXPECT_EQ(host->last("state").at("v").as_int64(), 0);
  run_ready();
  other.reset();
}

// The same, and a Start and a "sync" right after, at an instance whose
// writer reads for it: the table is read again on the writer's lane (the
// hello waits for it, and the connection's next message follows), never on
// the hub's thread.
TEST_P(Tables, ATableIsReadAgainForAnotherInstancesChangeOffTheHubsThread) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);
  auto bus = open_redis_bus(redis());  // outlives the hub below
  auto counted_hub = with_counted_store();
  Hub& hub = *counted_hub->hub;
  hub.set_bus(bus.get());
  const int before = counted_hub->counted.calls();
  const std::string ip = fresh_ip();
  std::optional<Answer> made;
  hub.create_table(R"({"name":"Somchai"})", ip, [&made](Answer r) { made = std::move(r); });
  ASSERT_TRUE(run_posted_until([&] { return made.has_value(); }));
  code_ = std::string(body(*made)["code"].as_string());
  auto host = std::make_shared<FakeClient>();
  host->ip = ip;
  hub.on_message(host, R"({"t":"hello","code":")" + code_ + R"(","token":")" +
                           std::string(body(*made)["token"].as_string()) + "\"}");
  ASSERT_EQ(host->count("welcome"), 1u);
  auto j = body(other->join(code_, R"({"name":"Dara"})", ip));
  ASSERT_TRUE(j.contains("token")) << json::serialize(j);
  // (the join's message waits, unread, in the queue)
  auto guest = std::make_shared<FakeClient>();
  guest->ip = ip;
  hub.on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + std::string(j["token"].as_string()) +
                            "\"}");
  hub.on_message(guest, R"({"t":"ping"})");
  EXPECT_TRUE(guest->sent.empty()) << "the hello waits for the table read again";
  hub.on_message(host, R"({"t":"start","id":"s"})");
  ASSERT_TRUE(run_posted_until([&] { return guest->count("pong") == 1 && !host->last("ack").empty(); }));
  EXPECT_EQ(guest->sent.front().at("t").as_string(), "welcome");
  EXPECT_EQ(guest->last("welcome").at("seat").as_int64(), 1);
  EXPECT_EQ(host->last("state").at("v").as_int64(), 0) << "the game started";
  const size_t parties = host->count("party");
  hub.on_message(host, R"({"t":"sync"})");
  ASSERT_TRUE(run_posted_until([&] { return host->count("party") > parties; }));
  EXPECT_EQ(host->last("party").at("players").as_array().size(), 2u);
  EXPECT_EQ(counted_hub->counted.calls(), before) << "the hub's thread asked its store";
  run_ready();
  counted_hub->hub.reset();  // before the bus goes
  other.reset();
}

// A token of no seat, at a table with a seat free: the store is asked, and the token refused.
TEST_P(Tables, ATokenOfNoSeatIsRefusedThoughTheStoreIsAsked) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);
  const std::string ip = fresh_ip();
  auto r = body(hub_->create_table(R"({"name":"Somchai"})", ip));
  code_ = std::string(r["code"].as_string());
  // A token of no seat is still refused.
  auto stranger = std::make_shared<FakeClient>();
  stranger->ip = ip;
  hub_->on_message(stranger, R"({"t":"hello","code":")" + code_ + R"(","token":"0123456789abcdef0123456789abcdef"})");
  EXPECT_EQ(stranger->last("error").at("code").as_string(), "forbidden");
  run_ready();
  other.reset();
}

// A move carries its action on the bus, and a start or an accepted rematch its
// new game: the other instance, holding the game just before, applies it in
// memory and tells its clients without reading the table from the store.
TEST_P(Tables, MovesRideOnTheBusAndTheOtherInstanceNeedsNoStoreRead) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  hub_bus_ = open_redis_bus(redis());
  hub_->set_bus(hub_bus_.get());
  other_bus_ = open_redis_bus(redis());
  other_store_ = second_store();
  testing_helpers::CountingStore counted(*other_store_);
  auto other = second_hub(counted, Posts::Queued, other_bus_.get());

  table();
  auto host = std::make_shared<FakeClient>(), guest = std::make_shared<FakeClient>();
  host->ip = "1.2.3.4";
  guest->ip = "1.2.3.5";
  hub_->on_message(host, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + R"(","events":true})");
  other->on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + guest_ + R"(","events":true})");
  // (the guest's hello opened the table there, and the join's message, which
  // carries nothing, had it read again)
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    run_ready();
  }
  const int reads = counted.loads;
  ASSERT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  ASSERT_TRUE(run_posted_until([&] { return !guest->last("state").empty(); }));

  const char* moves[] = {"e3e4", "d6d5", "e4d5", "c6c5", "a3a4", "c5c4"};
  for (int v = 0; v < 6; ++v) {
    auto& mover = v % 2 == 0 ? host : guest;
    Hub& at = v % 2 == 0 ? *hub_ : *other;
    at.on_message(mover, std::string(R"({"t":"move","move":")") + moves[v] + R"(","v":)" + std::to_string(v) + "}");
    ASSERT_TRUE(run_posted_until([&] {
      return rebuilt(*host).at("v").as_int64() == v + 1 && rebuilt(*guest).at("v").as_int64() == v + 1;
    })) << "move " << v + 1 << " on both instances";
    EXPECT_EQ(canonical(rebuilt(*host)), canonical(rebuilt(*guest)));
  }
  EXPECT_EQ(counted.loads, reads) << "the moves came with their actions";
  // What the other instance holds is what the store holds.
  EXPECT_EQ(canonical(rebuilt(*guest)), canonical(state(host_)));
  // A draw offered there and declined here, a resignation there: actions too.
  other->on_message(guest, R"({"t":"offer-draw","v":6})");
  ASSERT_TRUE(run_posted_until([&] { return !rebuilt(*host).at("drawOffer").is_null(); }));
  hub_->on_message(host, R"({"t":"decline-draw","v":7})");
  ASSERT_TRUE(run_posted_until([&] { return rebuilt(*guest).at("drawOffer").is_null(); }));
  other->on_message(guest, R"({"t":"resign","v":8})");
  ASSERT_TRUE(run_posted_until([&] { return rebuilt(*host).at("result").as_string() == "1-0"; }));
  EXPECT_EQ(counted.loads, reads) << "the start and every action came along";
  // A rematch: the offer is read from the store; the game it begins comes along.
  other->on_message(guest, R"({"t":"rematch"})");
  ASSERT_TRUE(run_posted_until([&] { return !host->last("party").at("rematch").at("offeredBy").is_null(); }));
  const int offered = counted.loads;
  hub_->on_message(host, R"({"t":"rematch"})");
  ASSERT_TRUE(run_posted_until([&] { return rebuilt(*guest).at("number").as_int64() == 2; }));
  EXPECT_EQ(counted.loads, offered);
  EXPECT_EQ(canonical(rebuilt(*guest)), canonical(state(guest_)));
  EXPECT_EQ(rebuilt(*guest).at("white").as_int64(), 1) << "colours swapped";
  other.reset();
}

// Instances with a bus: the instance that claims a CPU turn searches it. When
// it dies mid-search (its lease runs out unused), another takes the turn
// over; while the lease holds, nobody else searches. The reply is played once.
TEST_P(Tables, ACpuTurnWhoseInstanceDiedIsPlayedOnceByAnother) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  // The instance that dies: whatever it posts to itself (the CPU's reply) is lost.
  auto dying = with_bus_and_another_instance(Posts::Lost);
  HubLimits limits;
  limits.cpu_pause = false;
  dying->set_limits(limits);
  auto r = body(dying->create_table(R"({"name":"Somchai","cpu":1})", fresh_ip()));
  code_ = std::string(r["code"].as_string());
  host_ = std::string(r["token"].as_string());
  auto player = std::make_shared<FakeClient>();
  player->ip = "1.2.3.4";
  dying->on_message(player, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + "\"}");
  dying->on_message(player, R"({"t":"move","move":"e3e4","v":0})");
  ASSERT_EQ(player->last("ack").at("v").as_int64(), 1);

  // The lease holds: the other instance leaves the turn alone.
  clock_ += 5000;
  hub_->scan_cpu();
  run_ready();
  EXPECT_EQ(hub_->table_count(), 0u) << "not even opened";
  dying.reset();  // gone, its reply never played
  clock_ += limits.cpu_max_ms + CPU_LEASE_MARGIN_MS;
  hub_->scan_cpu();
  ASSERT_TRUE(run_posted_until([&] { return store_->load_table(code_)->games[0].actions.size() == 2; }))
      << "the other instance played the CPU's reply";
  run_ready();
  hub_->scan_cpu();
  run_ready();
  EXPECT_EQ(store_->load_table(code_)->games[0].actions.size(), 2u) << "once";
  EXPECT_EQ(store_->cpu_turn_tables(clock_ + 1000000, 10), std::vector<std::string>{});
}

// With other instances, the CPU's lease is claimed on the table's writer
// lane, not on the hub's thread: the reply comes, and the hub's own store
// connection was asked for no claim.
TEST_P(Tables, TheCpusLeaseIsClaimedOffTheHubsThread) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto bus = open_redis_bus(redis());  // outlives the hub below
  auto counted_hub = with_counted_store();
  Hub& hub = *counted_hub->hub;
  hub.set_bus(bus.get());
  HubLimits limits;
  limits.cpu_pause = false;
  hub.set_limits(limits);
  std::optional<Answer> made;
  hub.create_table(R"({"name":"Somchai","cpu":1})", fresh_ip(), [&made](Answer r) { made = std::move(r); });
  ASSERT_TRUE(run_posted_until([&] { return made.has_value(); }));
  ASSERT_EQ(made->outcome, Outcome::Created) << made->body;
  auto player = std::make_shared<FakeClient>();
  player->ip = "1.2.3.4";
  hub.on_message(player, R"({"t":"hello","code":")" + std::string(body(*made)["code"].as_string()) +
                             R"(","token":")" + std::string(body(*made)["token"].as_string()) + "\"}");
  hub.on_message(player, R"({"t":"move","move":"e3e4","v":0})");
  ASSERT_TRUE(run_posted_until([&] { return !player->last("state").empty() && player->last("state").at("v") == 2; }))
      << "the CPU's reply";
  EXPECT_EQ(counted_hub->counted.claims.load(), 0) << "claimed on the hub's thread";
  counted_hub->hub.reset();  // before the bus goes
}

// Who is at a table, across instances: each instance tells the others who is
// at its tables, so a player sees the other online, and the spectators (and
// their names) are counted wherever they are. What a dead instance said fades.
TEST_P(Tables, PresenceIsTheSameOnEveryInstance) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);
  table();
  auto host = connect(host_);
  auto guest = std::make_shared<FakeClient>(), watcher = std::make_shared<FakeClient>();
  guest->ip = watcher->ip = "1.2.3.5";
  other->on_message(guest, R"({"t":"hello","code":")" + code_ + R"(","token":")" + guest_ + "\"}");
  other->on_message(watcher, R"({"t":"hello","code":")" + code_ + R"(","name":"Noi"})");
  auto online = [](const FakeClient& c, int seat) {
    json::object p = c.last("party");
    return !p.empty() && p.at("players").as_array()[size_t(seat)].at("online").as_bool();
  };
  auto spectators = [](const FakeClient& c) {
    json::object p = c.last("party");
    return p.empty() ? -1 : int(p.at("spectators").as_int64());
  };
  ASSERT_TRUE(run_posted_until([&] { return online(*host, 1) && spectators(*host) == 1; }))
      << "the host's instance knows the guest and the spectator are at the other";
  EXPECT_EQ(host->last("party").at("watchers").as_array(), (json::array{"Noi"}));
  ASSERT_TRUE(run_posted_until([&] { return online(*guest, 0); })) << "and the other way round";
  // The guest leaves: offline for the host too.
  other->on_close(guest);
  ASSERT_TRUE(run_posted_until([&] { return !online(*host, 1); }));
  EXPECT_EQ(spectators(*host), 1);
  // The other instance dies without a word: what it said fades.
  other.reset();
  clock_ += 2 * PRESENCE_HEARTBEAT_MS + 10001;
  hub_->heartbeat();
  EXPECT_EQ(spectators(*host), 0);
  EXPECT_TRUE(host->last("party").at("watchers").as_array().empty());
}

// The per-address limits count across instances: spreading requests over
// them does not multiply what one address may do.
TEST_P(Tables, LimitsPerAddressAreSharedByTheInstances) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto otherHub = with_bus_and_another_instance(Posts::Lost);
  Hub& other = *otherHub;
  const std::string ip = fresh_ip();
  // Each instance learns the others' counts off its thread, a moment after
  // each request (a decision never waits for Redis): wait for that here.
  auto learned = [&] {
    for (int i = 0; i < 5000 && hub_->limits_asking() + other.limits_asking() > 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(hub_->limits_asking() + other.limits_asking(), 0) << "Redis did not answer";
  };
  int made = 0, refused = 0;
  for (int i = 0; i < 16; ++i) {
    Hub& at = i % 2 == 0 ? *hub_ : other;
    const Outcome outcome = at.create_table(R"({"name":"Somchai"})", ip).outcome;
    made += outcome == Outcome::Created;
    refused += outcome == Outcome::RateLimited;
    learned();
  }
  // 10 a minute in all, not 10 at each instance: an instance learns of the
  // other's last table at its own next one, so at most one more passes.
  const int limit = hub_->limits().create_per_minute;
  EXPECT_GE(made, limit);
  EXPECT_LE(made, limit + 1);
  EXPECT_EQ(refused, 16 - made);
  EXPECT_EQ(hub_->create_table(R"({"name":"Somchai"})", ip).outcome, Outcome::RateLimited) << "both instances refuse now";
  EXPECT_EQ(other.create_table(R"({"name":"Somchai"})", ip).outcome, Outcome::RateLimited);
  // Wrong codes likewise.
  int wrong = 0;
  for (int i = 0; i < 14; ++i) {
    Hub& at = i % 2 == 0 ? *hub_ : other;
    wrong += at.get_table("ZZZZZ" + std::to_string(i % 10), ip).outcome == Outcome::RateLimited;
    learned();
  }
  EXPECT_GE(wrong, 14 - hub_->limits().wrong_codes_per_minute - 1);
  EXPECT_LE(wrong, 14 - hub_->limits().wrong_codes_per_minute);
  // A minute later the address may create again.
  clock_ += 60001;
  EXPECT_EQ(other.create_table(R"({"name":"Somchai"})", ip).outcome, Outcome::Created);
}

// Finding an opponent across instances: the queue lives on the bus, so two
// seekers at different instances are paired (first come, first served), a
// third with other wishes waits, and cancelling leaves the shared queue.
TEST_P(Tables, SeekersAtDifferentInstancesArePaired) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);
  Lobby& here = lobby_of(*hub_, hub_bus_.get());
  Lobby& there = lobby_of(*other, other_bus_.get());
  const auto left = hub_bus_->seeks();  // what an earlier run left
  for (const auto& text : left.value()) hub_bus_->take_seek(text);
  auto seeker = [](const std::string& ip) {
    auto c = std::make_shared<FakeClient>();
    c->ip = ip;
    return c;
  };
  std::random_device random;
  const std::string tag = std::to_string(random());
  auto a = seeker("10.1.0.1"), b = seeker("10.1.0.2"), waiting = seeker("10.1.0.3");
  // The shared queue is asked on the bus's thread: the seeker hears once it answered.
  here.on_message(a, R"({"t":"seek","name":"Dara","variant":"ouk","counting":"declare","mode":"turn","browser":"a)" + tag + "\"}");
  ASSERT_TRUE(run_posted_until([&] { return !a->last("seeking").empty(); }));
  EXPECT_EQ(a->last("seeking").at("variant").as_string(), "ouk");
  there.on_message(waiting, R"({"t":"seek","name":"Noi","variant":"makruk","counting":"auto","mode":"live","browser":"w)" + tag + "\"}");
  ASSERT_TRUE(run_posted_until([&] { return !waiting->last("seeking").empty(); }));
  there.on_message(b, R"({"t":"seek","name":"Sokha","variant":"ouk","counting":"declare","mode":"","browser":"b)" + tag + "\"}");
  // b was paired at the other instance with a, who hears of it through the bus.
  ASSERT_TRUE(run_posted_until([&] { return !b->last("paired").empty() && !a->last("paired").empty(); }));
  const json::object pa = a->last("paired"), pb = b->last("paired");
  EXPECT_EQ(pa.at("code"), pb.at("code"));
  EXPECT_EQ(pa.at("seat").as_int64() + pb.at("seat").as_int64(), 1);
  EXPECT_EQ(pa.at("seat").as_int64(), 0) << "the one who waited longer hosts";
  EXPECT_EQ(pa.at("opponent").as_string(), "Sokha");
  EXPECT_EQ(pb.at("opponent").as_string(), "Dara");
  EXPECT_EQ(pa.at("party").at("variant").as_string(), "ouk");
  EXPECT_EQ(pa.at("party").at("mode").as_string(), "turn");
  // The table is an ordinary one: a's token holds seat 0 at either instance.
  code_ = std::string(pa.at("code").as_string());
  auto seat0 = std::make_shared<FakeClient>();
  other->on_message(seat0, R"({"t":"hello","code":")" + code_ + R"(","token":")" + std::string(pa.at("token").as_string()) + "\"}");
  ASSERT_TRUE(run_posted_until([&] { return !seat0->last("welcome").empty(); }));
  EXPECT_EQ(seat0->last("welcome").at("seat").as_int64(), 0);
  // The third waits (nobody wants Makruk live), then cancels: out of the shared queue.
  EXPECT_TRUE(waiting->last("paired").empty());
  auto isWaiting = [&] {
    const auto queue = hub_bus_->seeks();
    for (const auto& text : queue.value())
      if (text.find("w" + tag) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(isWaiting());
  // Both instances count the shared queue (asked on the bus's thread) for the lobby.
  auto waiting_at = [&](Lobby& lobby) {
    std::optional<json::object> counts;
    lobby.counts([&](json::object o) { counts = std::move(o); });
    EXPECT_TRUE(run_posted_until([&] { return counts.has_value(); }));
    return counts->at("waiting").to_number<int64_t>();
  };
  EXPECT_EQ(hub_bus_->seek_count(), hub_bus_->seeks().value().size());
  for (Lobby* l : {&here, &there}) EXPECT_EQ(waiting_at(*l), int64_t(hub_bus_->seek_count().value()));
  there.on_message(waiting, R"({"t":"unseek"})");
  EXPECT_EQ(waiting->last("seek-ended").at("reason").as_string(), "cancelled");
  const int64_t after_cancel = waiting_at(there);  // asked after the cancel's question
  EXPECT_EQ(after_cancel, int64_t(hub_bus_->seek_count().value()));
  EXPECT_FALSE(isWaiting());
}

// With other instances, a seek and a cancel ask the shared queue on the
// bus's thread, in order (Redis stalled: Cluster.WhileRedisIsStalled…).
TEST_P(Tables, ASeekAndItsCancelAskTheSharedQueueInOrderOffTheLobbysThread) {
  if (!redis()) GTEST_SKIP() << "no Redis (MAKRUK_TEST_REDIS) to test on";
  auto other = with_bus_and_another_instance(Posts::Queued);  // whose bus is asked nothing here
  Lobby& here = lobby_of(*hub_, hub_bus_.get());
  std::random_device random;
  const std::string tag = std::to_string(random());
  auto seeker = [](const std::string& ip) {
    auto c = std::make_shared<FakeClient>();
    c->ip = ip;
    return c;
  };
  // A seek and its cancel sent at once: the cancel's question follows the
  // seek's, so the entry leaves the shared queue.
  auto quick = seeker(fresh_ip(1));
  here.on_message(quick, R"({"t":"seek","name":"Dara","variant":"ouk","counting":"auto","mode":"turn","browser":"q)" + tag + "\"}");
  EXPECT_TRUE(quick->last("seeking").empty()) << "answered before the bus was asked";
  here.on_message(quick, R"({"t":"unseek"})");
  EXPECT_EQ(quick->last("seek-ended").at("reason").as_string(), "cancelled");
  bool asked = false;
  hub_bus_->ask([&, post = queued()] { post([&] { asked = true; }); });  // after both
  auto in_queue = [&](const std::string& mark) {
    const auto queue = hub_bus_->seeks();
    for (const auto& text : queue.value())
      if (text.find(mark + tag) != std::string::npos) return true;
    return false;
  };
  ASSERT_TRUE(run_posted_until([&] { return asked; }));
  EXPECT_FALSE(in_queue("q")) << "the cancel left the seek in the shared queue";
}

INSTANTIATE_TEST_SUITE_P(Backends, Tables, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });
