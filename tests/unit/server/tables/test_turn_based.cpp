// Turn-based tables through the hub with a simulated clock and a real SQLite
// store: days between moves, pushes to the player whose turn it is, the
// 45-day end, scheduled starts, the My games list.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "server/tables/hub.h"
#include "server/push/webpush.h"
#include "fake_client.h"
#include "notices_beside.h"
#include "temp_db.h"

using namespace makruk;
using namespace makruk::server;
namespace json = boost::json;

namespace {

constexpr int64_t HOUR = 3600LL * 1000;
constexpr int64_t DAY = 24 * HOUR;
constexpr int64_t T0 = 1764460800000;  // 2025-11-30T00:00:00Z

using testing_helpers::body;
using testing_helpers::FakeClient;

class TurnBased : public ::testing::Test {
 protected:
  void SetUp() override {
    open();
  }
  void TearDown() override {
    hub_.reset();
    notices_.reset();
    store_.reset();
    db_.clear();
  }
  // (Re)starts the hub on the same database, as a server restart would.
  void open() {
    hub_.reset();
    notices_.reset();
    store_.reset();
    store_ = open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [this] { return clock_; });
    hub_->load();
    notices_ = std::make_unique<testing_helpers::NoticesBeside>(
        *store_, [this](size_t) -> Hub& { return *hub_; }, [this] { return clock_; });
    notices_->notices.set_push("PUBLICKEY", [this](webpush::Delivery d) { pushes_.push_back(std::move(d)); }, false);
    notices_->attach(*hub_);
  }

  // Creates a table and seats a second player; returns the code.
  std::string table(const std::string& extra = R"("mode":"turn")") {
    auto r = body(hub_->create_table(R"({"name":"Somchai",)" + extra + "}", "1.2.3.4"));
    EXPECT_TRUE(r.contains("code")) << json::serialize(r);
    code_ = std::string(r["code"].as_string());
    host_ = std::string(r["token"].as_string());
    auto j = body(hub_->join(code_, R"({"name":"Dara"})", "1.2.3.5"));
    guest_ = std::string(j["token"].as_string());
    return code_;
  }
  std::shared_ptr<FakeClient> connect(const std::string& token) {
    auto c = std::make_shared<FakeClient>();
    c->ip = "1.2.3.4";
    hub_->on_message(c, R"({"t":"hello","code":")" + code_ + R"(","token":")" + token + "\"}");
    return c;
  }
  // Sends an action and returns the answer (ack or error).
  json::object say(const std::shared_ptr<FakeClient>& c, const std::string& msg) {
    return testing_helpers::answer_to(*hub_, c, msg);
  }
  json::object move(const std::shared_ptr<FakeClient>& c, const std::string& m, int v) {
    return say(c, R"({"t":"move","move":")" + m + R"(","v":)" + std::to_string(v) + "}");
  }
  json::object party() { return body(hub_->get_table(code_, "1.2.3.4"))["party"].as_object(); }
  std::string subscribe(const std::string& token, const std::string& endpoint, const std::string& lang = "th") {
    webpush::KeyPair ua = webpush::KeyPair::generate();
    json::object req{{"subscription", json::object{{"endpoint", endpoint},
                                                   {"keys", json::object{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                                                                         {"auth", webpush::b64url_encode("0123456789abcdef")}}}}},
                     {"lang", lang},
                     {"tables", json::array{json::object{{"code", code_}, {"token", token}}}}};
    return notices_->subscribe(json::serialize(req), "1.2.3.4").body;
  }
  json::object payload(size_t i) { return json::parse(pushes_.at(i).payload).as_object(); }

  testing_helpers::TempDb db_{"makruk-turn"};
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<testing_helpers::NoticesBeside> notices_;
  int64_t clock_ = T0;
  std::vector<webpush::Delivery> pushes_;
  std::string code_, host_, guest_;
};

}  // namespace

TEST_F(TurnBased, AGamePlayedOverDaysPushesToThePlayerWhoseTurnItIs) {
  table();
  EXPECT_EQ(party()["mode"].as_string(), "turn");
  EXPECT_EQ(subscribe(host_, "https://push.example.net/host"), R"({"subscribed":[")" + code_ + R"("],"unknown":[]})");
  subscribe(guest_, "https://push.example.net/guest", "km");
  auto host = connect(host_), guest = connect(guest_);
  EXPECT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  // Starting makes it White's (the host's) turn: the host is told, not the guest.
  ASSERT_EQ(pushes_.size(), 0u);  // the host started it himself

  clock_ += 3 * DAY;
  EXPECT_EQ(move(host, "e3e4", 0)["t"].as_string(), "ack");
  ASSERT_EQ(pushes_.size(), 1u);
  EXPECT_EQ(pushes_[0].to.endpoint, "https://push.example.net/guest");
  EXPECT_EQ(pushes_[0].topic, code_);
  auto p = payload(0);
  EXPECT_EQ(p["kind"].as_string(), "turn");
  EXPECT_EQ(p["opponent"].as_string(), "Somchai");
  EXPECT_EQ(p["move"].as_string(), "e4");
  EXPECT_EQ(p["url"].as_string(), "/p/" + code_);
  EXPECT_EQ(p["lang"].as_string(), "km");
  EXPECT_EQ(party()["lastMoveAt"].as_int64(), clock_);
  EXPECT_EQ(party()["expiresAt"].as_int64(), clock_ + 45 * DAY);

  clock_ += 10 * DAY;  // nothing times out per move
  EXPECT_EQ(move(guest, "e6e5", 1)["t"].as_string(), "ack");
  ASSERT_EQ(pushes_.size(), 2u);
  EXPECT_EQ(pushes_[1].to.endpoint, "https://push.example.net/host");
  EXPECT_EQ(payload(1)["opponent"].as_string(), "Dara");
  EXPECT_EQ(payload(1)["lang"].as_string(), "th");

  // A refused move pushes nothing; a resignation tells the other player the game is over.
  EXPECT_EQ(move(guest, "d6d5", 2)["t"].as_string(), "error");
  EXPECT_EQ(pushes_.size(), 2u);
  clock_ += 20 * DAY;
  EXPECT_EQ(say(guest, R"({"t":"resign","v":2})")["t"].as_string(), "ack");
  ASSERT_EQ(pushes_.size(), 3u);
  EXPECT_EQ(pushes_[2].to.endpoint, "https://push.example.net/host");
  EXPECT_EQ(payload(2)["kind"].as_string(), "over");
  EXPECT_EQ(payload(2)["result"].as_string(), "1-0");
  EXPECT_EQ(payload(2)["reason"].as_string(), "resignation");

  // A rematch offer is pushed to the other player; declining it pushes nothing;
  // accepting starts the next game, and whoever must move first is told.
  clock_ += DAY;
  EXPECT_EQ(say(guest, R"({"t":"rematch"})")["t"].as_string(), "ack");
  ASSERT_EQ(pushes_.size(), 4u);
  EXPECT_EQ(pushes_[3].to.endpoint, "https://push.example.net/host");
  EXPECT_EQ(payload(3)["kind"].as_string(), "rematch");
  EXPECT_EQ(payload(3)["opponent"].as_string(), "Dara");
  EXPECT_EQ(say(host, R"({"t":"decline-rematch"})")["t"].as_string(), "ack");
  EXPECT_EQ(pushes_.size(), 4u);
  EXPECT_EQ(say(guest, R"({"t":"rematch"})")["t"].as_string(), "ack");
  ASSERT_EQ(pushes_.size(), 5u);
  EXPECT_EQ(say(host, R"({"t":"rematch"})")["t"].as_string(), "ack");  // accepted: game 2, the guest is White
  ASSERT_EQ(pushes_.size(), 6u);
  EXPECT_EQ(pushes_[5].to.endpoint, "https://push.example.net/guest");
  EXPECT_EQ(payload(5)["kind"].as_string(), "turn");
  EXPECT_EQ(party()["gameNumber"].as_int64(), 2);
}

TEST_F(TurnBased, LiveTablesPushNothingAndNeverExpire) {
  table(R"("mode":"live")");
  subscribe(guest_, "https://push.example.net/guest");
  auto host = connect(host_);
  say(host, R"({"t":"start"})");
  move(host, "e3e4", 0);
  EXPECT_TRUE(pushes_.empty());
  clock_ += 400 * DAY;
  hub_->tick();
  EXPECT_EQ(party()["status"].as_string(), "playing");
  EXPECT_TRUE(party()["expiresAt"].is_null());
}

TEST_F(TurnBased, ExpiresAfter45DaysWithoutAMoveNotAt44Days23Hours) {
  table();
  subscribe(host_, "https://push.example.net/host");
  subscribe(guest_, "https://push.example.net/guest");
  auto host = connect(host_), guest = connect(guest_);
  say(host, R"({"t":"start"})");
  clock_ += DAY;
  move(host, "e3e4", 0);
  int64_t lastMove = clock_;
  clock_ += 5 * DAY;
  move(guest, "e6e5", 1);
  lastMove = clock_;
  pushes_.clear();

  clock_ = lastMove + 44 * DAY + 23 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"].as_string(), "playing");
  EXPECT_TRUE(pushes_.empty());

  clock_ = lastMove + 45 * DAY;
  hub_->tick();
  EXPECT_EQ(party()["status"].as_string(), "expired");
  auto state = guest->last("state");
  EXPECT_EQ(state["result"].as_string(), "1/2-1/2");
  EXPECT_EQ(state["reason"].as_string(), "expired");
  EXPECT_TRUE(state["legal"].as_array().empty());
  EXPECT_EQ(host->last("party")["status"].as_string(), "expired");
  // Both players are told.
  ASSERT_EQ(pushes_.size(), 2u);
  EXPECT_EQ(payload(0)["kind"].as_string(), "expired");
  EXPECT_EQ(payload(1)["kind"].as_string(), "expired");

  // Read-only from now on.
  EXPECT_EQ(move(host, "d3d4", 3)["code"].as_string(), "conflict");
  EXPECT_EQ(say(host, R"({"t":"rematch"})")["code"].as_string(), "conflict");
  EXPECT_EQ(say(guest, R"({"t":"resign","v":3})")["code"].as_string(), "conflict");
  auto j = body(hub_->join(code_, R"({"name":"Late"})", "1.2.3.6"));
  EXPECT_TRUE(j["seat"].is_null());  // a spectator may still look

  // A restart keeps it ended, with the action in the record.
  open();
  EXPECT_EQ(party()["status"].as_string(), "expired");
  auto back = connect(host_);
  EXPECT_EQ(back->last("state")["reason"].as_string(), "expired");
  EXPECT_EQ(back->last("state")["v"].as_int64(), 3);
}

TEST_F(TurnBased, ATableNobodyStartedExpiresToo) {
  table();
  clock_ += 45 * DAY - 1;
  EXPECT_EQ(party()["status"].as_string(), "ready");
  clock_ += 1;
  EXPECT_EQ(party()["status"].as_string(), "expired");  // looking at it is enough
  auto host = connect(host_);
  EXPECT_EQ(say(host, R"({"t":"start"})")["code"].as_string(), "conflict");
}

TEST_F(TurnBased, AScheduledTableStartsFromItsTimeAndOffersAnIcsFile) {
  int64_t at = T0 + 2 * HOUR + 30 * 60 * 1000;
  table(R"("mode":"turn","startsAt":)" + std::to_string(at));
  EXPECT_EQ(party()["startsAt"].as_int64(), at);
  auto host = connect(host_);
  auto e = say(host, R"({"t":"start"})");
  EXPECT_EQ(e["code"].as_string(), "conflict");
  EXPECT_NE(std::string(e["error"].as_string()).find("2025-11-30T02:30:00Z"), std::string::npos);
  Answer ics = invite_calendar(hub_->invite(code_, "https://makruk.example", "1.2.3.4"));
  EXPECT_EQ(ics.outcome, Outcome::Ok);
  EXPECT_EQ(ics.type, "text/calendar; charset=utf-8");
  EXPECT_NE(ics.body.find("DTSTART:20251130T023000Z\r\n"), std::string::npos);
  EXPECT_NE(ics.body.find("URL:https://makruk.example/p/" + code_), std::string::npos);
  EXPECT_EQ(ics.body.rfind("BEGIN:VCALENDAR\r\n", 0), 0u);
  // The 45 days count from the scheduled start, not from the creation.
  EXPECT_EQ(party()["expiresAt"].as_int64(), at + 45 * DAY);
  clock_ = at;
  EXPECT_EQ(say(host, R"({"t":"start"})")["t"].as_string(), "ack");
  EXPECT_EQ(party()["status"].as_string(), "playing");

  table(R"("mode":"live")");
  EXPECT_EQ(invite_calendar(hub_->invite(code_, "https://makruk.example", "1.2.3.4")).outcome, Outcome::NotFound);
}

TEST_F(TurnBased, CreationRefusesBadModesAndTimes) {
  auto refuse = [&](const std::string& b) {
    Answer r = hub_->create_table(b, "1.2.3.4");
    EXPECT_EQ(r.outcome, Outcome::BadRequest) << b;
    return r.body;
  };
  refuse(R"({"name":"A","mode":"slow"})");
  refuse(R"({"name":"A","mode":1})");
  refuse(R"({"name":"A","mode":"turn","cpu":3})");
  refuse(R"({"name":"A","startsAt":)" + std::to_string(T0 - 1) + "}");
  refuse(R"({"name":"A","startsAt":)" + std::to_string(T0 + 400 * DAY) + "}");
  refuse(R"({"name":"A","startsAt":"tomorrow"})");
  refuse(R"({"name":"A","cpu":2,"startsAt":)" + std::to_string(T0 + DAY) + "}");
  EXPECT_EQ(hub_->table_count(), 0u);
}

TEST_F(TurnBased, SubscriptionsAreCheckedKeptAcrossRestartsAndDroppedWhenGone) {
  table();
  // Refused: plain http, not a URL, bad keys, unknown tokens are listed.
  auto bad = [&](const std::string& b) { EXPECT_EQ(notices_->subscribe(b, "1.2.3.4").outcome, Outcome::BadRequest) << b; };
  std::string key = webpush::b64url_encode(webpush::KeyPair::generate().public_raw());
  std::string auth = webpush::b64url_encode("0123456789abcdef");
  std::string tables = R"("tables":[{"code":")" + code_ + R"(","token":")" + guest_ + R"("}])";
  bad(R"({"subscription":{"endpoint":"http://push.example.net/x","keys":{"p256dh":")" + key + R"(","auth":")" + auth +
      R"("}},)" + tables + "}");
  bad(R"({"subscription":{"endpoint":"push","keys":{"p256dh":")" + key + R"(","auth":")" + auth + R"("}},)" + tables + "}");
  for (const char* local : {"https://127.0.0.1/x", "https://10.0.0.8:8443/x", "https://[::1]/x", "https://localhost/x",
                            "https://printer.local/x", "https://db.internal/x"})
    bad(R"({"subscription":{"endpoint":")" + std::string(local) + R"(","keys":{"p256dh":")" + key + R"(","auth":")" +
        auth + R"("}},)" + tables + "}");
  bad(R"({"subscription":{"endpoint":"https://p.example/x","keys":{"p256dh":"AAAA","auth":")" + auth + R"("}},)" +
      tables + "}");
  bad(R"({"subscription":{"endpoint":"https://p.example/x","keys":{"p256dh":")" + key + R"(","auth":"AAAA"}},)" +
      tables + "}");
  bad(R"({"subscription":{"endpoint":"https://p.example/x"},)" + tables + "}");
  bad("[]");
  auto r = json::parse(notices_->subscribe(R"({"subscription":{"endpoint":"https://p.example/x","keys":{"p256dh":")" +
                                                key + R"(","auth":")" + auth +
                                                R"("}},"tables":[{"code":"ZZZZZZ","token":"x"},{"code":")" + code_ +
                                                R"(","token":")" + guest_ + R"("}]})",
                                            "1.2.3.4")
                            .body);
  EXPECT_EQ(json::serialize(r), R"({"subscribed":[")" + code_ + R"("],"unknown":["ZZZZZZ"]})");

  open();  // kept across a restart
  auto host = connect(host_);
  say(host, R"({"t":"start"})");
  move(host, "e3e4", 0);
  ASSERT_EQ(pushes_.size(), 1u);
  EXPECT_EQ(pushes_[0].to.endpoint, "https://p.example/x");
  EXPECT_EQ(pushes_[0].to.p256dh, key);

  notices_->notices.drop("https://p.example/x");  // the push service said 410
  open();
  auto guest = connect(guest_);
  move(guest, "e6e5", 1);
  move(connect(host_), "d3d4", 2);
  EXPECT_EQ(pushes_.size(), 1u);
  EXPECT_EQ(json::serialize(json::parse(notices_->unsubscribe(R"({"endpoint":"https://p.example/x"})").body)),
            R"({"removed":0})");
}

TEST_F(TurnBased, MyGamesListsWaitingTablesFirst) {
  std::string a = table();
  std::string aHost = host_, aGuest = guest_;
  auto host = connect(host_);
  say(host, R"({"t":"start"})");
  clock_ += HOUR;
  move(host, "e3e4", 0);  // Dara (guest) to move in table a
  clock_ += HOUR;
  std::string b = table();  // Dara is the guest of b too; not started
  std::string bGuest = guest_;
  auto req = [&](const std::string& t1, const std::string& t2) {
    return R"({"tables":[{"code":")" + b + R"(","token":")" + t2 + R"("},{"code":")" + a + R"(","token":")" + t1 +
           R"("},{"code":"QQQQQQ","token":"nope"}]})";
  };
  auto r = body(notices_->my_games(req(aGuest, bGuest), "1.2.3.4"));
  auto& games = r["games"].as_array();
  ASSERT_EQ(games.size(), 2u);
  EXPECT_EQ(games[0].at("code").as_string(), a);
  EXPECT_TRUE(games[0].at("yourTurn").as_bool());
  EXPECT_EQ(games[0].at("opponent").as_string(), "Somchai");
  EXPECT_EQ(games[0].at("color").as_string(), "b");
  EXPECT_EQ(games[0].at("lastMove").as_string(), "e4");
  EXPECT_EQ(games[0].at("mode").as_string(), "turn");
  EXPECT_EQ(games[1].at("code").as_string(), b);
  EXPECT_FALSE(games[1].at("yourTurn").as_bool());
  EXPECT_EQ(games[1].at("status").as_string(), "ready");
  EXPECT_EQ(json::serialize(r["unknown"]), R"(["QQQQQQ"])");

  // The host of a sees it is waiting for Dara.
  auto h = body(notices_->my_games(R"({"tables":[{"code":")" + a + R"(","token":")" + aHost + R"("}]})", "1.2.3.4"));
  EXPECT_FALSE(h["games"].as_array()[0].at("yourTurn").as_bool());
  EXPECT_EQ(h["games"].as_array()[0].at("opponent").as_string(), "Dara");

  EXPECT_EQ(notices_->my_games("{\"tables\":7}", "1.2.3.4").outcome, Outcome::BadRequest);
  EXPECT_EQ(notices_->my_games("nonsense", "1.2.3.4").outcome, Outcome::BadRequest);
  // Wrong pairs count as wrong codes: enumeration through this door is limited too.
  for (int i = 0; i < 12; ++i) notices_->my_games(R"({"tables":[{"code":"QQQQQQ","token":"x"}]})", "9.9.9.9");
  EXPECT_EQ(notices_->my_games(R"({"tables":[{"code":"QQQQQQ","token":"x"}]})", "9.9.9.9").outcome, Outcome::RateLimited);
}

TEST_F(TurnBased, TheTestClockIsOffUnlessEnabled) {
  EXPECT_EQ(hub_->advance_clock(R"({"advanceMs":1000})").outcome, Outcome::NotFound);
  hub_->enable_test_clock();
  table();
  auto r = body(hub_->advance_clock(R"({"advanceMs":3888000000})"));
  EXPECT_EQ(r["now"].as_int64(), T0 + 45 * DAY);
  EXPECT_EQ(party()["status"].as_string(), "expired");
  EXPECT_EQ(hub_->advance_clock(R"({"advanceMs":-5})").outcome, Outcome::BadRequest);
}

// Turn notifications driven alone, with a table of the test's own: a
// subscription is checked, its seats asked of the tables, stored (past the
// cap per seat the oldest is replaced); an expiry pushes to both seats in
// their languages, with the subscriptions the store has; wrong tokens are
// unknown; subscribing is limited per address; a gone subscription is
// dropped; My games shows the seat.
TEST(TurnNoticesAlone, SubscribesCapsPushesAndDrops) {
  testing_helpers::TempDb db{"makruk-notices"};
  auto store = open_sqlite_store(db.path());
  StoreWriter writer(*store);
  TableRecord r;
  r.code = "NOTICE";
  r.mode = "turn";
  store->create_table(r, SeatRecord{r.code, 0, "Somchai", hash_token("host")});
  store->add_seat(SeatRecord{r.code, 1, "Dara", hash_token("guest")});
  Table table(r);
  table.seats().push_back(Seat{"Somchai", hash_token("host"), 0});
  table.seats().push_back(Seat{"Dara", hash_token("guest"), 0});
  int64_t clock = T0;
  int asked = 0, wrong = 0;
  std::vector<std::function<void()>> posted;  // the part's own executor
  TurnNotices notices(
      TurnNotices::Tables{[&](TurnNotices::Pairs pairs, std::string, std::function<void(TurnNotices::Found)> then) {
        TurnNotices::Found found;
        for (size_t i = 0; i < pairs.size(); ++i) {
          ++asked;
          const auto& [code, token] = pairs[i];
          int seat = code == table.code() ? table.seat_of_token(hash_token(token)) : -1;
          if (seat >= 0) found.seats.push_back({i, code, seat, TurnNotices::game_of(table, seat)});
          else found.unknown.emplace_back(i, code), ++wrong;
        }
        then(std::move(found));
      }},
      [&] { return clock; }, [&](std::function<void()> f) { posted.push_back(std::move(f)); });
  auto run_posted = [&] {
    while (!posted.empty()) {
      auto f = std::move(posted.front());
      posted.erase(posted.begin());
      f();
    }
  };
  notices.set_writer(&writer);
  notices.set_limits(TurnNotices::Limits{4, 2, 4});
  std::vector<webpush::Delivery> pushes;
  std::optional<Answer> answer;
  auto at_once = [&](auto ask) {
    answer.reset();
    ask([&](Answer reply) { answer = std::move(reply); });
    run_posted();
    EXPECT_TRUE(answer.has_value());
    return answer.value_or(Answer{});
  };
  auto subscribe = [&](const std::string& token, const std::string& endpoint, const std::string& lang) {
    webpush::KeyPair ua = webpush::KeyPair::generate();
    json::object req{{"subscription", json::object{{"endpoint", endpoint},
                                                   {"keys", json::object{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                                                                         {"auth", webpush::b64url_encode("0123456789abcdef")}}}}},
                     {"lang", lang},
                     {"tables", json::array{json::object{{"code", "NOTICE"}, {"token", token}},
                                            json::object{{"code", "WRONG1"}, {"token", "x"}}}}};
    return at_once([&](auto respond) { notices.subscribe(json::serialize(req), "10.0.0.1", respond); });
  };
  EXPECT_EQ(notices.push_key().outcome, Outcome::Unavailable) << "no push until it is set up";
  EXPECT_EQ(subscribe("host", "https://push.example.net/a", "th").outcome, Outcome::Unavailable);
  notices.set_push("KEY", [&](webpush::Delivery d) { pushes.push_back(std::move(d)); }, false);
  EXPECT_EQ(body(notices.push_key())["publicKey"], "KEY");
  // Two browsers of the host, then a third: the oldest is replaced.
  EXPECT_EQ(subscribe("host", "https://push.example.net/a", "th").body, R"({"subscribed":["NOTICE"],"unknown":["WRONG1"]})");
  clock += 1000;
  EXPECT_EQ(subscribe("host", "https://push.example.net/b", "th").outcome, Outcome::Ok);
  clock += 1000;
  EXPECT_EQ(subscribe("guest", "https://push.example.net/g", "km").outcome, Outcome::Ok);
  clock += 1000;
  EXPECT_EQ(subscribe("host", "https://push.example.net/c", "en").outcome, Outcome::Ok);
  EXPECT_EQ(store->load_subscriptions("NOTICE").size(), 3u) << "host: b and c; guest: g";
  EXPECT_EQ(asked, 8) << "each request's tables were asked of the tables";
  EXPECT_EQ(wrong, 4);
  EXPECT_EQ(subscribe("host", "https://push.example.net/d", "en").outcome, Outcome::RateLimited) << "4 a minute per address";
  // The table's time ran out: both seats are told, each browser in its language.
  notices.notify(table, -1, "expired");
  EXPECT_TRUE(pushes.empty()) << "sent on the part's executor, not the caller's";
  run_posted();
  ASSERT_EQ(pushes.size(), 3u);
  std::set<std::string> to;
  for (const auto& d : pushes) {
    to.insert(d.to.endpoint);
    auto p = json::parse(d.payload).as_object();
    EXPECT_EQ(p["kind"], "expired");
    EXPECT_EQ(p["lang"], d.to.endpoint.ends_with("/g") ? "km" : d.to.endpoint.ends_with("/b") ? "th" : "en");
  }
  EXPECT_EQ(to, (std::set<std::string>{"https://push.example.net/b", "https://push.example.net/c",
                                       "https://push.example.net/g"}));
  // The push service said one is gone: dropped here and from the store.
  notices.drop("https://push.example.net/g");
  pushes.clear();
  notices.notify(table, -1, "expired");
  run_posted();
  EXPECT_EQ(pushes.size(), 2u);
  EXPECT_EQ(store->load_subscriptions("NOTICE").size(), 2u);
  // Unsubscribing removes a browser.
  EXPECT_EQ(at_once([&](auto respond) {
              notices.unsubscribe(R"({"endpoint":"https://push.example.net/b"})", respond);
            }).body,
            R"({"removed":1})");
  pushes.clear();
  notices.notify(table, -1, "expired");
  run_posted();
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].to.endpoint, "https://push.example.net/c");
  // My games: the guest's seat, not started.
  auto games = body(at_once([&](auto respond) {
    notices.my_games(R"({"tables":[{"code":"NOTICE","token":"guest"}]})", "10.0.0.1", respond);
  }));
  ASSERT_EQ(games["games"].as_array().size(), 1u);
  EXPECT_EQ(games["games"].as_array()[0].at("seat"), 1);
  EXPECT_EQ(games["games"].as_array()[0].at("opponent"), "Somchai");
}
