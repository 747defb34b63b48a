// What one client may ask of the hub: per-address limits on tables, joins and
// wrong codes, names, versions, repeated hellos, coalesced presence updates,
// idle live tables, push subscriptions per seat, and the CPU pool's turns.
#include <gtest/gtest.h>

#include "proof_of_work.h"

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>


#include "core/notation.h"
#include "core/position.h"

#include "fake_client.h"
#include "notices_beside.h"
#include "proof_of_work.h"
#include "server/text.h"
#include "server/cpu/cpu.h"
#include "server/tables/hub.h"
#include "server/push/webpush.h"
#include "temp_db.h"

using namespace makruk;
using namespace makruk::server;
using testing_helpers::body;
using testing_helpers::FakeClient;
namespace json = boost::json;

namespace {

constexpr int64_t MINUTE = 60LL * 1000;
constexpr int64_t HOUR = 60 * MINUTE;
constexpr int64_t T0 = 1764460800000;  // 2025-11-30T00:00:00Z

class Limits : public ::testing::Test {
 protected:
  void SetUp() override { open(); }
  void TearDown() override {
    hub_.reset();
    notices_.reset();
    store_.reset();
    db_.clear();
  }
  void open() {
    hub_.reset();
    notices_.reset();
    store_.reset();
    store_ = open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [this] { return clock_; });
    hub_->load();
    notices_ = std::make_unique<testing_helpers::NoticesBeside>(
        *store_, [this](size_t) -> Hub& { return *hub_; }, [this] { return clock_; });
    notices_->attach(*hub_);
    // Presence updates wait here until the test lets them go.
    hub_->set_defer([this](int64_t, std::function<void()> f) { deferred_.push_back(std::move(f)); });
  }
  void flush() {
    auto fs = std::move(deferred_);
    deferred_.clear();
    for (auto& f : fs) f();
  }
  Answer create(const std::string& ip, const std::string& extra = "") {
    return hub_->create_table(R"({"name":"Somchai")" + extra + "}", ip);
  }
  // A table with two players; sets code_, host_ and guest_.
  void table(const std::string& extra = "") {
    auto r = body(create("10.0.0.1", extra));
    ASSERT_TRUE(r.contains("code")) << json::serialize(r);
    code_ = std::string(r["code"].as_string());
    host_ = std::string(r["token"].as_string());
    auto j = body(hub_->join(code_, R"({"name":"Dara"})", "10.0.0.2"));
    guest_ = std::string(j["token"].as_string());
  }
  std::shared_ptr<FakeClient> connect(const std::string& token, const std::string& code = "",
                                      const std::string& ip = "10.0.0.1") {
    auto c = std::make_shared<FakeClient>();
    c->ip = ip;
    hello(c, token, code);
    return c;
  }
  void hello(const std::shared_ptr<FakeClient>& c, const std::string& token, const std::string& code = "") {
    hub_->on_message(c, R"({"t":"hello","code":")" + (code.empty() ? code_ : code) + R"(","token":")" + token + "\"}");
    clock_ += 100;  // stays within the 20-a-second message rate
  }
  json::object party() { return body(hub_->get_table(code_, "10.0.0.9"))["party"].as_object(); }

  testing_helpers::TempDb db_{"makruk-limits"};
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<testing_helpers::NoticesBeside> notices_;  // turn notifications beside it
  std::vector<std::function<void()>> deferred_;
  int64_t clock_ = T0;
  std::string code_, host_, guest_;
};

TEST_F(Limits, TableCreationIsLimitedPerAddressAndMinute) {
  for (int i = 0; i < 10; ++i) EXPECT_EQ(create("10.0.0.7").outcome, Outcome::Created) << i;
  Answer over = create("10.0.0.7");
  EXPECT_EQ(over.outcome, Outcome::RateLimited);
  EXPECT_EQ(body(over)["code"], "rate-limited");
  EXPECT_EQ(create("10.0.0.8").outcome, Outcome::Created);  // another address is not held up
  clock_ += MINUTE;
  EXPECT_EQ(create("10.0.0.7").outcome, Outcome::Created);  // and the window slides
}

TEST_F(Limits, RefusedCreationsDoNotCount) {
  for (int i = 0; i < 30; ++i) EXPECT_EQ(hub_->create_table(R"({"name":""})", "10.0.0.7").outcome, Outcome::BadRequest);
  EXPECT_EQ(create("10.0.0.7").outcome, Outcome::Created);
}

TEST_F(Limits, CpuTablesHaveTheirOwnLimit) {
  for (int i = 0; i < 3; ++i) EXPECT_EQ(create("10.0.0.7", R"(,"cpu":1)").outcome, Outcome::Created) << i;
  EXPECT_EQ(create("10.0.0.7", R"(,"cpu":1)").outcome, Outcome::RateLimited);
  EXPECT_EQ(create("10.0.0.7").outcome, Outcome::Created);  // a table for two is still fine
}

TEST_F(Limits, AFullCpuQueueRefusesNewCpuTables) {
  HubLimits l;
  l.cpu_queue = 1;
  l.cpu_per_minute = 0;
  hub_->set_limits(l);
  // Searches that cannot finish at once: the pool has one thread, level 8
  // thinks for a while, and the CPU (black in a first game) is to move in
  // this position, so the queue fills.
  int made = 0, busy = 0;
  for (int i = 0; i < 6; ++i) {
    Answer r = create("10.0.0.7", R"(,"cpu":8,"fen":"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1")");
    if (r.outcome == Outcome::Created) ++made;
    else if (r.outcome == Outcome::Unavailable && body(r)["code"] == "busy") ++busy;
  }
  EXPECT_GE(made, 1);
  EXPECT_GE(busy, 1);
}

TEST_F(Limits, OneAddressCannotFillTheCpuQueueForEveryone) {
  HubLimits l;
  l.cpu_queue_per_address = 1;
  l.cpu_per_minute = 0;
  hub_->set_limits(l);
  const std::string blackToMove = R"(,"cpu":8,"fen":"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1")";
  int busy = 0;
  for (int i = 0; i < 6; ++i) busy += create("10.0.0.7", blackToMove).outcome == Outcome::Unavailable;
  EXPECT_GE(busy, 1);
  EXPECT_EQ(create("10.0.0.8", blackToMove).outcome, Outcome::Created);  // another address still gets a CPU table
}

// The hubs of a process share one engine pool: an address's searches
// waiting at one hub count at the other, so spreading CPU tables over the
// hubs queues no more of them. (Each hub with a pool of its own would let
// one search wait at each.)
TEST_F(Limits, TheHubsOfAProcessShareOneCpuQueue) {
  auto pool = std::make_unique<CpuPool>(1);
  auto lost = [](std::function<void()>) {};  // the searches' answers are not played here
  Hub first(*store_, lost, [this] { return clock_; }, 1, pool.get());
  Hub second(*store_, lost, [this] { return clock_; }, 1, pool.get());
  first.set_shard(0, 2);
  second.set_shard(1, 2);
  second.count_with(first);
  HubLimits l;
  l.cpu_queue_per_address = 1;
  l.cpu_per_minute = 0;
  for (Hub* h : {&first, &second}) h->set_limits(l);
  // Level 8 thinks for a while, and the CPU (black) is to move at once.
  const std::string body = R"({"name":"Somchai","cpu":8,"fen":"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"})";
  int made = 0, busy = 0;
  for (int i = 0; i < 4; ++i) {
    const Outcome o = (i % 2 ? second : first).create_table(body, "10.0.0.7").outcome;
    made += o == Outcome::Created;
    busy += o == Outcome::Unavailable;
  }
  EXPECT_LE(made, 2) << "one search running and one waiting, for the whole process";
  EXPECT_GE(busy, 2);
  EXPECT_EQ(second.create_table(body, "10.0.0.8").outcome, Outcome::Created);  // another address
  pool.reset();  // its searches stop before the hubs they answer go
}

TEST_F(Limits, JoinsAreLimitedPerAddress) {
  table();
  for (int i = 0; i < 30; ++i) EXPECT_EQ(hub_->join(code_, R"({"name":"Watcher"})", "10.0.0.5").outcome, Outcome::Conflict) << i;  // full
  EXPECT_EQ(hub_->join(code_, R"({"name":"Watcher"})", "10.0.0.5").outcome, Outcome::RateLimited);
}

TEST_F(Limits, NamesMustShowSomethingAndCarryNoDirectionControls) {
  for (const char* bad : {"\u202E", "\u200B\u200B", "\u2066\u2069", "Som\u202Echai", "\u200F", "\u3000",
                          "\uFEFF", "\u00AD", "\u3164", "\xC0\x80", "\xED\xA0\x80", "\xC2\x85",
                          "Som\u2028chai", "a\uFFF9b"}) {
    Answer r = hub_->create_table(json::serialize(json::object{{"name", bad}}), "10.0.0.7");
    EXPECT_EQ(r.outcome, Outcome::BadRequest) << json::serialize(json::value(bad));
  }
  for (const char* good : {"สมชาย", "ដារ៉ា", "Ana María", "李", "a\u200Bb", "ក\u200Bខ"})
    EXPECT_EQ(hub_->create_table(json::serialize(json::object{{"name", good}}), "10.0.0.8").outcome, Outcome::Created) << good;
}

// The one UTF-8 reader behind names and feedback texts: well-formed sequences
// only (RFC 3629), whatever the JSON layer lets through.
TEST(Utf8, OnlyWellFormedSequencesAreRead) {
  using makruk::server::next_code_point;
  auto read_all = [](std::string_view s) {
    std::vector<uint32_t> out;
    size_t i = 0;
    while (i < s.size()) {
      auto cp = next_code_point(s, i);
      if (!cp) return std::optional<std::vector<uint32_t>>();
      out.push_back(*cp);
    }
    return std::optional(out);
  };
  EXPECT_EQ(read_all("a\x7F"), (std::vector<uint32_t>{'a', 0x7F}));
  EXPECT_EQ(read_all("\xC2\x80\xDF\xBF"), (std::vector<uint32_t>{0x80, 0x7FF}));
  EXPECT_EQ(read_all("สม"), (std::vector<uint32_t>{0x0E2A, 0x0E21}));
  EXPECT_EQ(read_all("\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"), (std::vector<uint32_t>{0xFFFF, 0x10000, 0x10FFFF}));
  for (const char* bad : {"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xF0\x80\x80\x80",  // stray, overlong
                          "\xED\xA0\x80", "\xED\xBF\xBF",                                               // surrogates
                          "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80", "\xFF", "\xFE",                       // past U+10FFFF
                          "\xC2", "\xE0\xB8", "\xF0\x90\x80", "\xC2" "a", "\xE0\xB8" "a"}) {                   // cut short
    SCOPED_TRACE(::testing::PrintToString(std::string(bad)));
    EXPECT_FALSE(read_all(bad));
    size_t i = 0;
    EXPECT_FALSE(next_code_point(bad, i));
    EXPECT_EQ(i, 0u);  // nothing consumed
  }
  size_t end = 3;
  EXPECT_FALSE(next_code_point("abc", end));
}

TEST_F(Limits, NamesHaveAtMost24Characters) {
  // 24 characters, counted as code points whatever their bytes: the web form's limit too.
  const std::string thai24 = "สมชายสมชายสมชายสมชายสมชา";  // 24 Thai letters, 72 bytes
  EXPECT_EQ(hub_->create_table(json::serialize(json::object{{"name", thai24}}), "10.0.0.8").outcome, Outcome::Created);
  EXPECT_EQ(hub_->create_table(json::serialize(json::object{{"name", std::string(24, 'a')}}), "10.0.0.8").outcome, Outcome::Created);
  Answer r = hub_->create_table(json::serialize(json::object{{"name", std::string(25, 'a')}}), "10.0.0.8");
  EXPECT_EQ(r.outcome, Outcome::BadRequest);
  EXPECT_NE(r.body.find("1 to 24 characters"), std::string::npos) << r.body;
}

TEST_F(Limits, AFullTableSaysSoAndSpectatorsAreListedByName) {
  table();
  Answer full = hub_->join(code_, R"({"name":"Late"})", "10.0.0.5");
  EXPECT_EQ(full.outcome, Outcome::Conflict);
  auto j = body(full);
  EXPECT_EQ(j["code"], "full");
  EXPECT_EQ(j["party"].as_object()["status"], "ready");  // the table, to offer watching it
  EXPECT_EQ(party()["players"].as_array().size(), 2u);   // nothing changed

  auto host = connect(host_);
  auto anna = std::make_shared<FakeClient>();
  anna->ip = "10.0.0.5";
  hub_->on_message(anna, R"({"t":"hello","code":")" + code_ + R"(","name":"  Anna "})");
  auto anon = connect("");
  auto anna2 = std::make_shared<FakeClient>();  // the same name from another tab
  hub_->on_message(anna2, R"({"t":"hello","code":")" + code_ + R"(","name":"Anna"})");
  auto bad = std::make_shared<FakeClient>();
  hub_->on_message(bad, R"({"t":"hello","code":")" + code_ + R"(","name":"\u202Eevil"})");
  EXPECT_EQ(bad->last("error")["code"], "bad-request");
  EXPECT_EQ(bad->count("welcome"), 0u);
  flush();
  json::object p = host->last("party");
  EXPECT_EQ(p["spectators"], 3);
  EXPECT_EQ(json::serialize(p["watchers"]), R"(["Anna"])");
  hub_->on_close(anna);
  flush();
  EXPECT_EQ(json::serialize(host->last("party")["watchers"]), R"(["Anna"])");  // the other tab is still there
  hub_->on_close(anna2);
  // A second hello with another name renames the watcher.
  hub_->on_message(anon, R"({"t":"hello","code":")" + code_ + R"(","name":"Bo"})");
  flush();
  EXPECT_EQ(host->last("party")["spectators"], 1);
  EXPECT_EQ(json::serialize(host->last("party")["watchers"]), R"(["Bo"])");
  // A player's name in hello changes nothing: players have their seat's name.
  hub_->on_message(host, R"({"t":"hello","code":")" + code_ + R"(","token":")" + host_ + R"(","name":"Zed"})");
  flush();
  EXPECT_EQ(host->last("party")["players"].as_array()[0].as_object()["name"], "Somchai");
  EXPECT_EQ(json::serialize(host->last("party")["watchers"]), R"(["Bo"])");
}

TEST_F(Limits, TheInviteKeyIsNoGuessSoTheWrongCodeLimitLetsItIn) {
  table();
  const std::string key(party()["key"].as_string());
  EXPECT_EQ(key.size(), 16u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(hub_->get_table("ZZZZZ" + std::to_string(i), "10.0.0.3").outcome, Outcome::NotFound);
  // Limited: a bare code is a guess, and so is a wrong key.
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.3").outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.3", "0000000000000000").outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->get_table("ZZZZZZ", "10.0.0.3", key).outcome, Outcome::RateLimited);  // a key opens its own table only
  // The link's key lets the page, its QR code, its calendar event and a spectator in.
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.3", key).outcome, Outcome::Ok);
  Answer qr = invite_qr(hub_->invite(code_, "https://makruk.example", "10.0.0.3", key));
  EXPECT_EQ(qr.outcome, Outcome::Ok);
  auto watcher = std::make_shared<FakeClient>();
  watcher->ip = "10.0.0.3";
  hub_->on_message(watcher, R"({"t":"hello","code":")" + code_ + R"(","key":")" + key + R"("})");
  EXPECT_EQ(watcher->count("welcome"), 1u);
  EXPECT_EQ(body(hub_->join(code_, R"({"name":"Late","key":")" + key + R"("})", "10.0.0.3")).at("code"), "full");
  // Still limited for guesses.
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.3").outcome, Outcome::RateLimited);
}

using makruk::testing_pow::solve;

TEST_F(Limits, ATypedValidCodeOpensWithAMomentsWorkWhileTheAddressIsLimited) {
  HubLimits limits;
  limits.proof_bits = 8;
  hub_->set_limits(limits);
  table();
  const std::string ip = "10.0.0.3";
  for (int i = 0; i < 10; ++i) EXPECT_EQ(hub_->get_table("ZZZZZ" + std::to_string(i), ip).outcome, Outcome::NotFound);
  // Limited: a bare code is refused, with the work that would let it through.
  auto refused = body(hub_->get_table(code_, ip));
  ASSERT_EQ(refused["code"], "rate-limited");
  const std::string stamp(refused["proof"].at("challenge").as_string());
  EXPECT_EQ(refused["proof"].at("bits"), 8);
  // Done: the table opens, with its key for the join and the connection.
  const std::string proof = solve(stamp, 8);
  Answer opened = hub_->get_table(code_, ip, "", proof);
  ASSERT_EQ(opened.outcome, Outcome::Ok) << opened.body;
  EXPECT_EQ(body(opened)["party"].at("key").as_string().size(), 16u);
  // A stamp serves once.
  EXPECT_EQ(hub_->get_table(code_, ip, "", proof).outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(stamp, 8)).outcome, Outcome::RateLimited);
  // Work not done, or done for a stale or future stamp, or malformed: refused.
  const std::string fresh(body(hub_->get_table(code_, ip))["proof"].at("challenge").as_string());
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(fresh, 0, 8)).outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(std::to_string(clock_ - MINUTE - 1) + ".ab", 8)).outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(std::to_string(clock_ + MINUTE) + ".ab", 8)).outcome, Outcome::RateLimited);
  for (const std::string& bad : std::vector<std::string>{"", ".", "..", "1.2", "a.b.c", ".1.2", "12345678901234567.a.1",
                                std::string(100, '0') + ".a.1", "-5.a.1"})
    EXPECT_EQ(hub_->get_table(code_, ip, "", bad).outcome, Outcome::RateLimited) << bad;
  // A stamp the page made itself is as good: the work is what counts.
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(std::to_string(clock_) + ".mine", 8)).outcome, Outcome::Ok);
  // A wrong code with the work done is answered as such, and counts: after a
  // minute's worth, each lookup asks sixteen times the work.
  for (int i = 0; i < 10; ++i) {
    auto r = hub_->get_table("YYYYY" + std::to_string(i), ip, "",
                             solve(std::to_string(clock_) + ".w" + std::to_string(i), 8));
    EXPECT_EQ(r.outcome, Outcome::NotFound) << i;
  }
  EXPECT_EQ(body(hub_->get_table(code_, ip))["proof"].at("bits"), 12);
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(std::to_string(clock_) + ".easy", 8, 12)).outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->get_table(code_, ip, "", solve(std::to_string(clock_) + ".hard", 12)).outcome, Outcome::Ok);
  // Other addresses are not asked for anything, and the window slides.
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.4").outcome, Outcome::Ok);
  clock_ += MINUTE + 1;
  EXPECT_EQ(hub_->get_table(code_, ip).outcome, Outcome::Ok);
}

TEST_F(Limits, WithoutProofsOfWorkALimitedAddressIsToldToWait) {
  HubLimits limits;
  limits.proof_bits = 0;
  hub_->set_limits(limits);
  table();
  for (int i = 0; i < 10; ++i) hub_->get_table("ZZZZZ" + std::to_string(i), "10.0.0.3");
  auto refused = body(hub_->get_table(code_, "10.0.0.3"));
  EXPECT_EQ(refused["code"], "rate-limited");
  EXPECT_FALSE(refused.contains("proof"));
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.3", "", solve(std::to_string(clock_) + ".a", 8)).outcome, Outcome::RateLimited);
}

TEST_F(Limits, InviteKeysSurviveARestart) {
  table();
  const std::string key(party()["key"].as_string());
  open();
  EXPECT_EQ(party()["key"].as_string(), key);
}

TEST_F(Limits, QuickMessagesAreFixedPhrasesFromPlayersAtAPace) {
  table();
  auto host = connect(host_);
  auto guest = connect(guest_, "", "10.0.0.2");
  auto watcher = connect("", "", "10.0.0.3");
  hub_->on_message(host, R"({"t":"say","phrase":"good-luck","id":"q1"})");
  EXPECT_EQ(host->last("ack")["id"], "q1");
  EXPECT_TRUE(host->last("ack").contains("v"));  // every ack carries the game's version
  for (auto* c : {&host, &guest, &watcher}) {
    json::object said = (*c)->last("said");
    EXPECT_EQ(said["seat"], 0);
    EXPECT_EQ(said["phrase"], "good-luck");
  }
  // Too soon after the last one; then fine again.
  hub_->on_message(host, R"({"t":"say","phrase":"thanks"})");
  EXPECT_EQ(host->last("error")["code"], "rate-limited");
  clock_ += 2000;
  hub_->on_message(host, R"({"t":"say","phrase":"thanks"})");
  EXPECT_EQ(guest->last("said")["phrase"], "thanks");
  // Free text, unknown phrases and spectators are refused.
  clock_ += 2000;
  const size_t said = guest->count("said");
  hub_->on_message(guest, R"({"t":"say","phrase":"<b>hi</b>"})");
  EXPECT_EQ(guest->last("error")["code"], "bad-request");
  hub_->on_message(watcher, R"({"t":"say","phrase":"hello"})");
  EXPECT_EQ(watcher->last("error")["code"], "forbidden");
  EXPECT_EQ(guest->count("said"), said);
}

TEST_F(Limits, VersionsOutsideTheIntRangeAreRefused) {
  table();
  auto host = connect(host_);
  hub_->on_message(host, R"({"t":"start"})");
  clock_ += 100;
  for (const char* v : {"4294967296", "-1", "2147483648", "9223372036854775807"}) {
    size_t before = host->sent.size();
    hub_->on_message(host, std::string(R"({"t":"move","move":"e3e4","v":)") + v + "}");
    clock_ += 100;
    ASSERT_GT(host->sent.size(), before);
    EXPECT_EQ(host->sent.back()["t"], "error") << v;
    EXPECT_EQ(host->sent.back()["code"], "bad-request") << v;
  }
  EXPECT_EQ(body(hub_->get_table(code_, "10.0.0.1"))["party"].as_object()["status"], "playing");
}

TEST_F(Limits, ALowerCaseCodeInHelloIsTheSameTable) {
  table();
  std::string lower = code_;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  auto c = connect(host_, lower);
  EXPECT_EQ(c->last("welcome")["seat"], 0);
  EXPECT_TRUE(c->last("error").empty());
}

TEST_F(Limits, ARepeatedHelloTellsTheOthersNothing) {
  table();
  auto guest = connect(guest_, "", "10.0.0.2");
  auto host = connect(host_);
  flush();
  size_t before = guest->sent.size();
  for (int i = 0; i < 100; ++i) hello(host, host_);
  flush();
  EXPECT_EQ(guest->sent.size(), before);
  EXPECT_EQ(host->count("welcome"), 101u);  // the sender itself is answered each time
  EXPECT_EQ(party()["players"].as_array()[0].as_object()["online"], true);
}

TEST_F(Limits, PresenceChangesAreCoalesced) {
  table();
  auto host = connect(host_);
  flush();
  size_t before = host->count("party");
  std::vector<std::shared_ptr<FakeClient>> watchers;
  for (int i = 0; i < 300; ++i) watchers.push_back(connect("", "", "10.1.0." + std::to_string(i % 250)));
  EXPECT_EQ(host->count("party"), before);  // nothing yet: one update is on its way
  EXPECT_EQ(deferred_.size(), 1u);
  flush();
  EXPECT_EQ(host->count("party"), before + 1);
  EXPECT_EQ(host->last("party")["spectators"], 300);
  for (auto& w : watchers) hub_->on_close(w);
  flush();
  EXPECT_EQ(host->count("party"), before + 2);
  EXPECT_EQ(host->last("party")["spectators"], 0);
}

TEST_F(Limits, AWrongCodeLimitedAddressStillGetsToItsOwnSeat) {
  table();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(hub_->get_table("ZZZZZ" + std::to_string(i), "10.0.0.1").outcome, Outcome::NotFound);
  EXPECT_EQ(hub_->get_table(code_, "10.0.0.1").outcome, Outcome::RateLimited);  // a bare code is a guess
  auto c = connect(host_);  // the seat's token is not
  EXPECT_EQ(c->last("welcome")["seat"], 0);
  EXPECT_EQ(hub_->join(code_, R"({"name":"X","token":")" + guest_ + "\"}", "10.0.0.1").outcome, Outcome::Ok);
  auto spectator = connect("");
  EXPECT_EQ(spectator->last("error")["code"], "rate-limited");
  auto wrongToken = connect("00112233445566778899aabbccddeeff");
  EXPECT_EQ(wrongToken->last("error")["code"], "rate-limited");
}

// Round 2, 2: no oracle. Once an address is limited, a lookup by a bare
// code looks nothing up: a table that exists and one that does not are
// answered alike, and neither is opened. Wrong tokens and keys past the
// limit are counted too; once there were as many as wrong codes, they look
// nothing up either.
TEST_F(Limits, ALimitedLookupOpensNothingAndAnswersAlike) {
  table();
  const std::string first = code_, firstGuest = guest_;
  table();
  const std::string second = code_;
  open();  // a restart: no table in memory
  ASSERT_EQ(hub_->table_count(), 0u);
  const std::string ip = "10.0.0.3";
  for (int i = 0; i < 10; ++i) EXPECT_EQ(hub_->get_table("ZZZZZ" + std::to_string(i), ip).outcome, Outcome::NotFound);
  EXPECT_EQ(hub_->table_count(), 0u);
  json::object existing = body(hub_->get_table(first, ip)), missing = body(hub_->get_table("QQQQQQ", ip));
  for (json::object* o : {&existing, &missing}) o->at("proof").as_object().erase("challenge");  // random
  EXPECT_EQ(json::serialize(existing), json::serialize(missing));
  EXPECT_EQ(body(invite_qr(hub_->invite(first, "https://makruk.example", ip, "")))["code"], "rate-limited");
  auto spectator = connect("", first, ip);
  EXPECT_EQ(spectator->last("error")["code"], "rate-limited");
  EXPECT_EQ(hub_->table_count(), 0u) << "a refused lookup opened a table";
  // The seat's own token still opens it.
  EXPECT_EQ(hub_->join(first, R"({"name":"X","token":")" + firstGuest + R"("})", ip).outcome, Outcome::Ok);
  EXPECT_EQ(hub_->table_count(), 1u);
  // Wrong tokens: ten more lookups, then none.
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(hub_->join(first, R"({"name":"X","token":"wrong)" + std::to_string(i) + R"("})", ip).outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->join(second, R"({"name":"X","token":"wrong"})", ip).outcome, Outcome::RateLimited);
  auto wrongToken = connect("00112233445566778899aabbccddeeff", second, ip);
  EXPECT_EQ(wrongToken->last("error")["code"], "rate-limited");
  EXPECT_EQ(hub_->get_table(second, ip, "0000000000000000").outcome, Outcome::RateLimited);
  EXPECT_EQ(hub_->table_count(), 1u) << "a lookup past the wrong credentials' limit opened a table";
  // Another address is not limited; the window slides.
  EXPECT_EQ(hub_->get_table(second, "10.0.0.4").outcome, Outcome::Ok);
  clock_ += MINUTE + 1;
  EXPECT_EQ(hub_->get_table(second, ip).outcome, Outcome::Ok);
}

TEST_F(Limits, AnIdleLiveTableNobodyIsAtEnds) {
  table();
  auto host = connect(host_);
  hub_->on_message(host, R"({"t":"start"})");
  hub_->on_close(host);
  clock_ += 23 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "playing");
  clock_ += 2 * HOUR;
  hub_->tick();
  json::object p = party();
  EXPECT_EQ(p["status"], "expired");
  open();  // and it stays so after a restart, showing the same last move time
  EXPECT_EQ(party()["status"], "expired");
  EXPECT_EQ(party()["lastMoveAt"], p["lastMoveAt"]);
  auto again = connect(host_);
  hub_->on_message(again, R"({"t":"move","move":"e3e4","v":0})");
  EXPECT_EQ(again->last("error")["code"], "conflict");
}

TEST_F(Limits, ALiveTableCountsItsIdleDayFromTheLastPersonLeaving) {
  table();
  auto host = connect(host_);
  clock_ += 48 * HOUR;  // someone sat at it for two days without a move
  hub_->on_close(host);
  clock_ += 23 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "ready");
  clock_ += 2 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "expired");
}

TEST_F(Limits, ARestartGivesLiveTablesAFreshDay) {
  table();
  clock_ += 30 * HOUR;  // nobody there, but the server is restarted before a tick
  open();
  hub_->tick();
  EXPECT_EQ(party()["status"], "ready");
  clock_ += 25 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "expired");
}

TEST_F(Limits, ALiveTableWithAStartTimeWaitsForIt) {
  table(R"(,"startsAt":)" + std::to_string(T0 + 72 * HOUR));
  clock_ += 60 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "ready");
  clock_ += 36 * HOUR;  // a day after the start time
  hub_->tick();
  EXPECT_EQ(party()["status"], "expired");
}

TEST_F(Limits, PushSubscriptionsAreLimitedPerAddress) {
  table(R"(,"mode":"turn")");
  notices_->notices.set_push("KEY", [](webpush::Delivery) {}, false);
  webpush::KeyPair ua = webpush::KeyPair::generate();
  json::object pair{{"code", code_}, {"token", guest_}};
  json::object req{{"subscription",
                    json::object{{"endpoint", "https://push.example.net/s/1"},
                                 {"keys", json::object{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                                                       {"auth", webpush::b64url_encode("0123456789abcdef")}}}}},
                   {"tables", json::array(100, pair)}};  // one pair a hundred times counts once
  Answer first = notices_->subscribe(json::serialize(req), "10.0.0.2");
  ASSERT_EQ(first.outcome, Outcome::Ok);
  EXPECT_EQ(body(first)["subscribed"].as_array().size(), 1u);
  for (int i = 1; i < 20; ++i) EXPECT_EQ(notices_->subscribe(json::serialize(req), "10.0.0.2").outcome, Outcome::Ok);
  EXPECT_EQ(notices_->subscribe(json::serialize(req), "10.0.0.2").outcome, Outcome::RateLimited);
  EXPECT_EQ(notices_->subscribe(json::serialize(req), "10.0.0.3").outcome, Outcome::Ok);
}

TEST_F(Limits, ALiveTableSomeoneIsAtDoesNotEnd) {
  table();
  auto host = connect(host_);
  clock_ += 48 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "ready");
  HubLimits never;
  never.live_idle_ms = 0;
  hub_->set_limits(never);
  hub_->on_close(host);
  clock_ += 480 * HOUR;
  hub_->tick();
  EXPECT_EQ(party()["status"], "ready");
}

TEST_F(Limits, ASeatKeepsItsNewestPushSubscriptions) {
  table(R"(,"mode":"turn")");
  std::vector<webpush::Delivery> pushes;
  notices_->notices.set_push("KEY", [&](webpush::Delivery d) { pushes.push_back(std::move(d)); }, false);
  webpush::KeyPair ua = webpush::KeyPair::generate();
  auto subscribe = [&](int i) {
    json::object req{
        {"subscription",
         json::object{{"endpoint", "https://push.example.net/s/" + std::to_string(i)},
                      {"keys", json::object{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                                            {"auth", webpush::b64url_encode("0123456789abcdef")}}}}},
        {"tables", json::array{json::object{{"code", code_}, {"token", guest_}}}}};
    clock_ += 1000;
    return notices_->subscribe(json::serialize(req), "10.0.0.2").outcome;
  };
  for (int i = 0; i < 15; ++i) EXPECT_EQ(subscribe(i), Outcome::Ok);
  auto host = connect(host_);
  hub_->on_message(host, R"({"t":"start"})");  // the guest is pushed now if it plays white,
  clock_ += 100;
  if (pushes.empty()) hub_->on_message(host, R"({"t":"move","move":"e3e4","v":0})");  // else after this move
  ASSERT_EQ(pushes.size(), 10u);  // one to each of the guest's ten newest browsers
  for (const auto& d : pushes) EXPECT_GE(std::stoi(d.to.endpoint.substr(d.to.endpoint.rfind('/') + 1)), 5);
  open();  // the cap holds in storage too
  std::vector<webpush::Delivery> after;
  notices_->notices.set_push("KEY", [&](webpush::Delivery d) { after.push_back(std::move(d)); }, false);
  EXPECT_EQ(subscribe(99), Outcome::Ok);
}

// Round 2, 1: a seat's subscriptions are at four push services at most (a
// new service replaces the oldest subscription at another), so that one
// seat cannot spread its pushes over many services that hang.
TEST_F(Limits, ASeatUsesAtMostFourPushServices) {
  table(R"(,"mode":"turn")");
  std::vector<webpush::Delivery> pushes;
  notices_->notices.set_push("KEY", [&](webpush::Delivery d) { pushes.push_back(std::move(d)); }, false);
  webpush::KeyPair ua = webpush::KeyPair::generate();
  auto subscribe = [&](const std::string& endpoint) {
    json::object req{{"subscription", json::object{{"endpoint", endpoint},
                                                   {"keys", json::object{{"p256dh", webpush::b64url_encode(ua.public_raw())},
                                                                         {"auth", webpush::b64url_encode("0123456789abcdef")}}}}},
                     {"tables", json::array{json::object{{"code", code_}, {"token", guest_}}}}};
    clock_ += 1000;
    return notices_->subscribe(json::serialize(req), "10.0.0.2").outcome;
  };
  // Three browsers at the first service, then one at each of six more.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(subscribe("https://push0.example.net/s/" + std::to_string(i)), Outcome::Ok);
  for (int k = 1; k <= 6; ++k) EXPECT_EQ(subscribe("https://push" + std::to_string(k) + ".example.net/s/x"), Outcome::Ok);
  auto host = connect(host_);
  hub_->on_message(host, R"({"t":"start"})");
  clock_ += 100;
  if (pushes.empty()) hub_->on_message(host, R"({"t":"move","move":"e3e4","v":0})");
  std::set<std::string> services;
  for (const auto& d : pushes) services.insert(webpush::origin_of(d.to.endpoint));
  EXPECT_EQ(services, (std::set<std::string>{"https://push3.example.net", "https://push4.example.net",
                                             "https://push5.example.net", "https://push6.example.net"}));
  EXPECT_EQ(pushes.size(), 4u);
}

// Round 2, 7: under load a search's time is divided by one plus the
// searches waiting per thread, never below 0.2 s (or its own cap).
TEST(CpuPool, ASearchsTimeIsDividedWhenManyWait) {
  EXPECT_EQ(CpuPool::budget_ms(1500, 0, 1), 1500);
  EXPECT_EQ(CpuPool::budget_ms(1500, 2, 1), 500);
  EXPECT_EQ(CpuPool::budget_ms(1500, 2, 2), 750);
  EXPECT_EQ(CpuPool::budget_ms(1500, 1, 2), 1500);  // less than one waiting per thread
  EXPECT_EQ(CpuPool::budget_ms(1500, 19, 1), CpuPool::MIN_SHARED_MS);
  EXPECT_EQ(CpuPool::budget_ms(100, 19, 1), 100);
  EXPECT_EQ(CpuPool::budget_ms(1500, size_t(1) << 40, 1), CpuPool::MIN_SHARED_MS);
  EXPECT_EQ(CpuPool::budget_ms(1500, 5, 0), 250);  // no threads counts as one
}

TEST(CpuPool, ServesTheOwnerServedLeastRecentlyFirst) {
  CpuPool pool(1);
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::string> order;
  auto job = [&](const std::string& owner) {
    CpuJob j;
    std::string error;
    j.position.set(Position::MAKRUK_START, Variant::Makruk, Counting::Automatic, &error);
    j.level = 8;
    j.max_ms = 50;
    j.owner = owner;
    j.done = [&, owner](std::vector<std::string>) {
      std::lock_guard lock(m);
      order.push_back(owner);
      cv.notify_all();
    };
    return j;
  };
  for (int i = 0; i < 6; ++i) pool.submit(job("flood"));
  pool.submit(job("victim"));
  std::unique_lock lock(m);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return order.size() == 7; }));
  // Only the search already running goes before the victim's: the flood has
  // been served since, the victim never.
  auto at = std::find(order.begin(), order.end(), "victim") - order.begin();
  EXPECT_LE(at, 1);
}

}  // namespace

namespace {

// A bus whose counts wait until the test answers them (the other methods
// answer nothing): what an instance sees while Redis is slow, and then what
// it learns.
class HeldCounts final : public Bus {
 public:
  struct Asked {
    std::string key;
    int64_t now;
    bool record;
    std::function<void(std::optional<int64_t>)> done;
  };
  std::vector<Asked> asked;

  void count(const std::string& key, int64_t now, bool record,
             std::function<void(std::optional<int64_t>)> done) override {
    asked.push_back({key, now, record, std::move(done)});
  }
  void publish(const BusMessage&) override {}
  void start(std::function<void(BusMessage)>) override {}
  void stop() override {}
  bool healthy() override { return true; }
  bool up() const override { return true; }
  void ask(std::function<void()>) override {}
  std::optional<std::vector<std::string>> seeks() override { return std::nullopt; }
  std::optional<size_t> seek_count() override { return std::nullopt; }
  bool add_seek(const std::string&, int64_t) override { return false; }
  bool take_seek(const std::string&) override { return false; }
  const std::string& id() const override { return id_; }
  void alive() override {}
  bool is_alive(const std::string&) override { return true; }

 private:
  std::string id_ = "test";
};

}  // namespace

// Shared by instances, a limit decides without waiting for the bus: its own
// events count at once, the others' once the bus has said how many there
// are; a check without an event asks at most once a second; a bus that does
// not answer leaves the instance counting alone.
TEST(AddressLimiterShared, DecidesAtOnceAndLearnsTheOtherInstancesCounts) {
  HeldCounts bus;
  AddressLimiter limiter;
  limiter.share(&bus, "create");
  const int64_t t = 1000000;
  EXPECT_TRUE(limiter.allow("10.0.0.1", t, 3));
  EXPECT_TRUE(limiter.allow("10.0.0.1", t, 3));
  ASSERT_EQ(bus.asked.size(), 2u) << "each event is told, and the count asked";
  EXPECT_EQ(bus.asked[0].key, "create:10.0.0.1");
  EXPECT_TRUE(bus.asked[0].record);
  EXPECT_EQ(limiter.asking(), 2) << "decided while the bus had not answered";
  // The bus answers: 6 events in all, 2 of them this instance's.
  bus.asked[0].done(5);
  bus.asked[1].done(6);
  EXPECT_EQ(limiter.asking(), 0);
  EXPECT_FALSE(limiter.allow("10.0.0.1", t + 1, 3)) << "the others' 4 count too";
  EXPECT_FALSE(limiter.allow("10.0.0.1", t + 2, 5));
  EXPECT_EQ(bus.asked.size(), 2u) << "a refusal within a second of the last question asks nothing";
  EXPECT_TRUE(limiter.allow("10.0.0.1", t + 3, 7));
  // A check without an event asks once a second at most.
  EXPECT_TRUE(limiter.allow("10.0.0.2", t, 3, false));
  EXPECT_TRUE(limiter.allow("10.0.0.2", t + 10, 3, false));
  EXPECT_EQ(bus.asked.size(), 4u);
  EXPECT_FALSE(bus.asked[3].record);
  EXPECT_TRUE(limiter.allow("10.0.0.2", t + AddressLimiter::ASK_GAP_MS, 3, false));
  EXPECT_EQ(bus.asked.size(), 5u);
  // The bus does not answer: this instance's own events still count.
  bus.asked[3].done(std::nullopt);
  EXPECT_TRUE(limiter.allow("10.0.0.3", t, 1));
  bus.asked.back().done(std::nullopt);
  EXPECT_FALSE(limiter.allow("10.0.0.3", t + 1, 1));
  // The others' events fade a minute after they were learned.
  EXPECT_TRUE(limiter.allow("10.0.0.1", t + 60000, 3, false));
  // An answer that comes after the limiter has gone changes nothing.
  auto late = std::make_unique<AddressLimiter>();
  late->share(&bus, "late");
  late->allow("10.0.0.4", t, 3);
  auto done = bus.asked.back().done;
  late.reset();
  done(10);
}

// The CPU players driven alone, with a table of the test's own where the CPU
// (seat 1) has White in its second game: its turn is searched once, on the engine's thread, and
// what it found comes back through the hub's queue for the tables to play;
// CPU tables are limited per address.
TEST(CpuPlayersAlone, SearchTheTurnOnceAndHandTheMoveToTheTables) {
  TableRecord r;
  r.code = "CPUONE";
  r.cpu_level = 1;
  r.swap_colors = true;  // White alternates: the CPU has it in game 2
  Table table(r);
  table.seats().push_back(Seat{"Somchai", "h", 0});
  table.seats().push_back(Seat{"CPU", "", 0});
  ASSERT_TRUE(table.begin_stored(1, 1, 0, 1000, "one"));
  ASSERT_TRUE(table.begin_stored(2, 2, 1, 1000, "two"));  // game 2, White at seat 1: the CPU's
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<void()>> posted;
  struct Played {
    std::string code;
    int64_t game;
    int version;
    std::vector<std::string> actions;
  };
  std::vector<Played> played;
  CpuPlayers cpus(CpuPlayers::Tables{[&](const std::string& code) { return code == "CPUONE" ? &table : nullptr; },
                                     [](const std::vector<std::string>&, std::function<void()> then) { then(); },
                                     [&](const std::string& code, int64_t game, int version,
                                         std::vector<std::string> actions) {
                                       played.push_back({code, game, version, std::move(actions)});
                                     }},
                  [] { return int64_t(5000); },
                  [&](std::function<void()> f) {
                    std::lock_guard lock(m);
                    posted.push_back(std::move(f));
                    cv.notify_all();
                  },
                  1);
  cpus.set_limits(CpuPlayers::Limits{500, false, 1, 256, 8});
  cpus.maybe_play(table);
  EXPECT_TRUE(cpus.busy("CPUONE"));
  cpus.maybe_play(table);  // already thinking: no second search
  EXPECT_LE(cpus.pending(), 1u);
  {
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return !posted.empty(); }));
  }
  auto f = std::move(posted.front());
  posted.pop_front();
  f();
  ASSERT_EQ(played.size(), 1u);
  EXPECT_EQ(played[0].code, "CPUONE");
  EXPECT_EQ(played[0].game, 2);
  EXPECT_EQ(played[0].version, 0);
  ASSERT_FALSE(played[0].actions.empty());
  Position start;
  ASSERT_TRUE(start.set(Position::start_fen(Variant::Makruk), Variant::Makruk, Counting::Automatic, nullptr));
  EXPECT_FALSE(parse_move(start, played[0].actions.back()).is_none()) << "a legal first move for White";
  EXPECT_TRUE(cpus.busy("CPUONE")) << "until the tables take what it found";
  cpus.finished("CPUONE");
  EXPECT_FALSE(cpus.busy("CPUONE"));
  // One CPU table a minute for this address (refusals do not count).
  EXPECT_FALSE(cpus.may_create("10.0.0.9", 5000).has_value());
  cpus.created("CPUTWO", "10.0.0.9", 5000);
  auto no = cpus.may_create("10.0.0.9", 5001);
  ASSERT_TRUE(no.has_value());
  EXPECT_EQ(no->outcome, Outcome::RateLimited);
  EXPECT_EQ(no->why, Msg::LimitCpuTables);
  EXPECT_FALSE(cpus.may_create("10.0.0.10", 5001).has_value()) << "another address";
  EXPECT_FALSE(cpus.may_create("10.0.0.9", 65001).has_value()) << "a minute later";
  std::lock_guard lock(m);
  EXPECT_TRUE(posted.empty()) << "searched once";
}
