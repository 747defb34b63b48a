// The public feedback board: items posted and listed, bad input refused and
// nothing stored, per-address limits, and the maintainers' side behind the
// admin secret (status, reply, hiding), kept through a restart.
#include <gtest/gtest.h>

#include <cmath>

#include <boost/json.hpp>

#include "fake_client.h"
#include "server/clean_text.h"
#include "server/community/community.h"
#include "server/tables/hub.h"
#include "temp_db.h"

using namespace makruk;
using namespace makruk::server;
using testing_helpers::body;
namespace json = boost::json;

namespace {

const std::string SECRET = "a-long-admin-secret";
const std::string AUTH = "Bearer " + SECRET;

class Feedback : public ::testing::Test {
 protected:
  void SetUp() override { open(); }
  void TearDown() override {
    community_.reset();
    hub_.reset();
    store_.reset();
    db_.clear();
  }
  // The tables (the hub) and the community beside them, on one store as in
  // the server (where each has a connection of its own).
  void open(const std::string& secret = SECRET) {
    community_.reset();
    hub_.reset();
    store_.reset();
    store_ = open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [this] { return clock_; });
    hub_->load();
    community_ = std::make_unique<Community>(*store_, [this] { return clock_; });
    community_->set_admin_secret(secret);
  }
  Answer post(const json::object& o, const std::string& ip = "10.0.0.1") {
    return community_->feedback_post(json::serialize(o), ip);
  }
  json::array items() { return body(community_->feedback_list())["items"].as_array(); }
  // A recommendation, the tables telling whose seat the token is.
  Answer recommend(const std::string& body, const std::string& ip) {
    return community_->recommend(body, ip, [this](const std::string& code, const std::string& token,
                                                  const std::string& from) {
      return hub_->recommending_seat(code, token, from);
    });
  }

  testing_helpers::TempDb db_{"makruk-feedback"};
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<Community> community_;
  int64_t clock_ = 1764460800000;
};

TEST_F(Feedback, ItemsArePublishedNewestFirstAndTextStaysText) {
  Answer r = post({{"kind", "bug"}, {"text", "  The <b>board</b>\nflickers  "}, {"table", "abcdef"}, {"lang", "th"}});
  ASSERT_EQ(r.outcome, Outcome::Created) << r.body;
  clock_ += 1000;
  ASSERT_EQ(post({{"kind", "setting"}, {"text", "A clock, please"}, {"name", "Noi"}}, "10.0.0.2").outcome, Outcome::Created);
  json::array all = items();
  ASSERT_EQ(all.size(), 2u);
  json::object newest = all[0].as_object(), first = all[1].as_object();
  EXPECT_EQ(newest["kind"], "setting");
  EXPECT_EQ(newest["name"], "Noi");
  EXPECT_EQ(newest["lang"], "en");  // none given
  EXPECT_EQ(first["text"], "The <b>board</b>\nflickers");  // trimmed, kept byte for byte
  EXPECT_EQ(first["table"], "ABCDEF");
  EXPECT_EQ(first["status"], "new");
  EXPECT_TRUE(first["reply"].is_null());
  EXPECT_TRUE(first["name"].is_null());
}

TEST_F(Feedback, BadInputIsRefusedAndNothingIsStored) {
  for (const json::object& bad : std::vector<json::object>{
           {{"kind", "praise"}, {"text", "x"}},
           {{"kind", "bug"}, {"text", "   "}},
           {{"kind", "bug"}, {"text", std::string(2001, 'x')}},
           {{"kind", "bug"}, {"text", "a\x01b"}},
           {{"kind", "bug"}, {"text", "\xC0\x80"}},
           {{"kind", "bug"}, {"text", "ok"}, {"name", "\u202Eevil"}},
           {{"kind", "bug"}, {"text", "ok"}, {"table", "NOT-A-CODE"}},
           {{"kind", "bug"}, {"text", 5}},
       }) {
    clock_ += 60000;  // past the per-minute limit each time
    EXPECT_EQ(post(bad).outcome, Outcome::BadRequest) << json::serialize(bad);
  }
  EXPECT_EQ(post({{"kind", "bug"}, {"text", std::string(2000, 'x')}}).outcome, Outcome::Created);  // the longest allowed
  EXPECT_EQ(items().size(), 1u);
  EXPECT_EQ(community_->feedback_post("not json", "10.0.0.1").outcome, Outcome::BadRequest);
}

// Round 2, 8: a text is checked as a name is. Nothing that flips the text
// around it, nothing that looks empty, no marks stacked past the lines
// around; Thai and Khmer with their marks pass.
TEST_F(Feedback, TextsAreCleanedAsNamesAre) {
  std::string zalgo = "a";
  for (int i = 0; i < 2000; ++i) zalgo += "\u0301";
  const std::vector<std::pair<std::string, std::string>> bad{
      {"Hello \u202Eevil", "text.direction"},  {"\u2067rtl\u2069", "text.direction"},
      {"one\u2028two", "text.direction"},      {"\u200B\u200B\u200B", "text.invisible"},
      {"\u2800\u3164\uFEFF", "text.invisible"}, {zalgo.substr(0, 1 + 2 * 1999), "text.marks"},
      {"e\u0301\u0302\u0303\u0304\u0305\u0306\u0307", "text.marks"}, {"a\xC2\x85" "b", "text.control"}};
  for (const auto& [text, msg] : bad) {
    clock_ += 60000;
    Answer r = post({{"kind", "bug"}, {"text", text}});
    EXPECT_EQ(r.outcome, Outcome::BadRequest) << json::serialize(json::value(text));
    EXPECT_EQ(body(r)["msg"], json::value(msg)) << r.body;
  }
  EXPECT_EQ(items().size(), 0u);
  for (const std::string good : {"กระดานกระพริบ ไม่เห็นเบี้ยที่ถูกกิน", "ក្ដារខៀនមិនបង្ហាញ ស្ត្រី", "Ana Mari\u0301a",
                                 "e\u0301\u0302\u0303\u0304\u0305\u0306", "line one\n\tline two"}) {
    clock_ += 60000;
    EXPECT_EQ(post({{"kind", "feedback"}, {"text", good}}).outcome, Outcome::Created) << good;
  }
  // A name stacks no more marks than a text.
  Message why;
  EXPECT_FALSE(makruk::server::clean_name("e\u0301\u0302\u0303\u0304\u0305\u0306\u0307", why));
  EXPECT_EQ(why.id, Msg::NameMarks);
  EXPECT_TRUE(makruk::server::clean_name("น้ำ", why));
}

TEST_F(Feedback, ThreeAMinuteFromOneAddress) {
  for (int i = 0; i < 3; ++i) EXPECT_EQ(post({{"kind", "feedback"}, {"text", "hi"}}).outcome, Outcome::Created);
  EXPECT_EQ(post({{"kind", "feedback"}, {"text", "hi"}}).outcome, Outcome::RateLimited);
  EXPECT_EQ(post({{"kind", "feedback"}, {"text", "hi"}}, "10.0.0.9").outcome, Outcome::Created);  // another address
  clock_ += 61000;
  EXPECT_EQ(post({{"kind", "feedback"}, {"text", "hi"}}).outcome, Outcome::Created);
}

TEST_F(Feedback, MaintainersAnswerSetStatusAndHideBehindTheSecret) {
  post({{"kind", "bug"}, {"text", "spam spam"}});
  post({{"kind", "setting"}, {"text", "A clock"}});
  const std::string spam = std::to_string(items()[1].as_object()["id"].as_int64());
  const std::string clock = std::to_string(items()[0].as_object()["id"].as_int64());
  // Without the secret, or with a wrong one: refused, nothing changes.
  EXPECT_EQ(community_->admin_feedback_list("", "10.0.0.5").outcome, Outcome::Unauthorized);
  EXPECT_EQ(community_->admin_feedback_update(spam, R"({"hidden":true})", "Bearer wrong", "10.0.0.5").outcome, Outcome::Unauthorized);
  EXPECT_EQ(community_->admin_feedback_update(spam, R"({"hidden":true})", SECRET, "10.0.0.5").outcome, Outcome::Unauthorized);  // no "Bearer"
  EXPECT_EQ(items().size(), 2u);
  // With it; the scheme's name in any case (RFC 9110).
  EXPECT_EQ(community_->admin_feedback_update(spam, R"({"hidden":true})", AUTH, "10.0.0.5").outcome, Outcome::Ok);
  for (const std::string& auth : {"bearer " + SECRET, "BEARER  " + SECRET, "  Bearer " + SECRET + " "})
    EXPECT_EQ(community_->admin_feedback_list(auth, "10.0.0.5").outcome, Outcome::Ok) << auth;
  EXPECT_EQ(community_->admin_feedback_list("Basic " + SECRET, "10.0.0.5").outcome, Outcome::Unauthorized);
  clock_ += 5000;
  Answer r = community_->admin_feedback_update(clock, R"({"status":"planned","reply":"Coming in the spring"})", AUTH, "10.0.0.5");
  ASSERT_EQ(r.outcome, Outcome::Ok) << r.body;
  EXPECT_EQ(body(r)["item"].as_object()["repliedAt"], clock_);
  EXPECT_EQ(community_->admin_feedback_update(clock, R"({"status":"maybe"})", AUTH, "10.0.0.5").outcome, Outcome::BadRequest);
  EXPECT_EQ(community_->admin_feedback_update("999", R"({"status":"done"})", AUTH, "10.0.0.5").outcome, Outcome::NotFound);
  EXPECT_EQ(community_->admin_feedback_update("x1", R"({"status":"done"})", AUTH, "10.0.0.5").outcome, Outcome::NotFound);
  // The public board shows the answer and not the hidden item; the admin list shows both.
  json::array pub = items();
  ASSERT_EQ(pub.size(), 1u);
  EXPECT_EQ(pub[0].as_object()["status"], "planned");
  EXPECT_EQ(pub[0].as_object()["reply"], "Coming in the spring");
  EXPECT_EQ(body(community_->admin_feedback_list(AUTH, "10.0.0.5"))["items"].as_array().size(), 2u);
  // Kept through a restart.
  open();
  EXPECT_EQ(items().size(), 1u);
  EXPECT_EQ(items()[0].as_object()["reply"], "Coming in the spring");
}

TEST_F(Feedback, WrongSecretsAreLimitedAndNoSecretMeansNoAdmin) {
  for (int i = 0; i < 10; ++i) EXPECT_EQ(community_->admin_feedback_list("Bearer guess" + std::to_string(i), "10.0.0.6").outcome, Outcome::Unauthorized);
  EXPECT_EQ(community_->admin_feedback_list(AUTH, "10.0.0.6").outcome, Outcome::RateLimited);  // even the right one, for a minute
  EXPECT_EQ(community_->admin_feedback_list(AUTH, "10.0.0.7").outcome, Outcome::Ok);
  open("");
  EXPECT_EQ(community_->admin_feedback_list(AUTH, "10.0.0.7").outcome, Outcome::NotFound);
}

TEST_F(Feedback, RecommendationsOnePerPlayerAfterAGameAndTheAverage) {
  // A table with two players and a game under way.
  json::object c = body(hub_->create_table(R"({"name":"Somchai"})", "10.0.0.1"));
  const std::string code(c["code"].as_string()), host(c["token"].as_string());
  const std::string guest(body(hub_->join(code, R"({"name":"Dara"})", "10.0.0.2"))["token"].as_string());
  auto rec = [&](const std::string& token, int stars, const std::string& text = "", const std::string& ip = "10.0.0.1") {
    clock_ += 30000;
    return recommend(json::serialize(json::object{{"code", code}, {"token", token}, {"stars", stars}, {"text", text},
                                                         {"lang", "th"}}),
                           ip);
  };
  EXPECT_EQ(rec(host, 5).outcome, Outcome::Conflict);  // no game has ended yet
  auto player = std::make_shared<testing_helpers::FakeClient>(), other = std::make_shared<testing_helpers::FakeClient>();
  player->ip = "10.0.0.1";
  other->ip = "10.0.0.2";
  hub_->on_message(player, R"({"t":"hello","code":")" + code + R"(","token":")" + host + R"("})");
  hub_->on_message(other, R"({"t":"hello","code":")" + code + R"(","token":")" + guest + R"("})");
  hub_->on_message(player, R"({"t":"start"})");
  // Five moves each (the host plays White), then the guest resigns: both
  // really played. Four each would not do (below).
  const char* moves[] = {"a3a4", "h6h5", "b3b4", "g6g5", "c3c4", "f6f5", "d3d4", "e6e5", "h3h4", "a6a5"};
  for (int v = 0; v < 10; ++v) {
    hub_->on_message(v % 2 ? other : player, json::serialize(json::object{{"t", "move"}, {"v", v}, {"move", moves[v]}}));
    clock_ += 100;
  }
  ASSERT_EQ(player->last("state")["v"], 10) << json::serialize(player->last("error"));
  hub_->on_message(other, R"({"t":"resign","v":10})");
  EXPECT_EQ(rec("00112233445566778899aabbccddeeff", 5).outcome, Outcome::Forbidden);  // not a seat of it
  EXPECT_EQ(rec(host, 0).outcome, Outcome::BadRequest);
  EXPECT_EQ(rec(host, 6).outcome, Outcome::BadRequest);
  EXPECT_EQ(rec(host, 4, std::string(501, 'x')).outcome, Outcome::BadRequest);
  Answer r = rec(host, 4, "สนุกมาก <3");
  ASSERT_EQ(r.outcome, Outcome::Created) << r.body;
  EXPECT_EQ(rec(guest, 2, "", "10.0.0.2").outcome, Outcome::Created);
  // Writing again replaces the first: one per player and table.
  EXPECT_EQ(rec(host, 5, "Even better the second time").outcome, Outcome::Created);
  json::object list = body(community_->recommendations());
  EXPECT_EQ(list["count"], 2);
  EXPECT_DOUBLE_EQ(list["average"].as_double(), 3.5);
  json::object newest = list["items"].as_array()[0].as_object();
  EXPECT_EQ(newest["name"], "Somchai");
  EXPECT_EQ(newest["stars"], 5);
  EXPECT_EQ(newest["text"], "Even better the second time");
  EXPECT_FALSE(newest.contains("code"));  // the table is not published
  // A maintainer hides one: the average follows.
  json::array all = body(community_->admin_recommendations(AUTH, "10.0.0.5"))["items"].as_array();
  ASSERT_EQ(all.size(), 2u);
  const std::string id = std::to_string(all[1].as_object()["id"].as_int64());  // Dara's
  EXPECT_EQ(community_->admin_recommendation_update(id, R"({"hidden":true})", "Bearer nope", "10.0.0.5").outcome, Outcome::Unauthorized);
  EXPECT_EQ(community_->admin_recommendation_update(id, R"({"hidden":true})", AUTH, "10.0.0.5").outcome, Outcome::Ok);
  EXPECT_EQ(community_->admin_recommendation_update("12345", R"({"hidden":true})", AUTH, "10.0.0.5").outcome, Outcome::NotFound);
  list = body(community_->recommendations());
  EXPECT_EQ(list["count"], 1);
  EXPECT_DOUBLE_EQ(list["average"].as_double(), 5.0);
}

// Round 2, 4: a game resigned at once, or with fewer than five moves of
// one's own, does not make a player able to recommend.
TEST_F(Feedback, ARecommendationNeedsAGameReallyPlayed) {
  json::object c = body(hub_->create_table(R"({"name":"Somchai","cpu":1})", "10.0.0.1"));
  const std::string code(c["code"].as_string()), host(c["token"].as_string());
  auto player = std::make_shared<testing_helpers::FakeClient>();
  player->ip = "10.0.0.1";
  hub_->on_message(player, R"({"t":"hello","code":")" + code + R"(","token":")" + host + R"("})");
  hub_->on_message(player, R"({"t":"resign","v":0})");
  ASSERT_NE(player->last("state")["result"], "*");
  Answer r = recommend(
      json::serialize(json::object{{"code", code}, {"token", host}, {"stars", 5}, {"lang", "en"}}), "10.0.0.1");
  EXPECT_EQ(r.outcome, Outcome::Conflict);
  EXPECT_EQ(body(r)["msg"], "recommend.too-early");
  EXPECT_EQ(body(r)["args"].at("moves"), 5);
  EXPECT_EQ(body(community_->recommendations())["count"], 0);
}

// Round 2, 4: a burst of recommendations moves the average by five at most
// at once; the others are held until they are a day old.
TEST_F(Feedback, ABurstOfRecommendationsIsHeldForADay) {
  int tables = 0;
  auto table = [&] {  // a table for each (a recommendation belongs to one)
    const std::string ip = "10.1.0." + std::to_string(++tables);
    return std::string(body(hub_->create_table(R"({"name":"P"})", ip))["code"].as_string());
  };
  auto put = [&](int stars, int64_t at) {
    RecommendationRecord r;
    r.code = table();
    r.name = "N";
    r.variant = "makruk";
    r.stars = stars;
    r.lang = "en";
    r.created_at = at;
    store_->put_recommendation(r);
  };
  for (int i = 0; i < 4; ++i) put(2, clock_ - (i + 2) * 86400000LL);  // four honest ones over the last week
  for (int i = 0; i < 30; ++i) put(5, clock_ - 3000 + i * 100);        // thirty five-star ones in three seconds
  json::object now = body(community_->recommendations());
  EXPECT_EQ(now["count"], 9);  // the four old ones and five of the burst
  EXPECT_EQ(now["held"], 25);
  EXPECT_DOUBLE_EQ(now["average"].as_double(), std::round((4 * 2 + 5 * 5) / 9.0 * 10) / 10);
  EXPECT_EQ(now["items"].as_array().size(), 34u);  // all are listed
  clock_ += 86400000LL;
  json::object later = body(community_->recommendations());
  EXPECT_EQ(later["count"], 34);
  EXPECT_EQ(later["held"], 0);
}

// One browser moving between addresses (mobile data, a VPN) is limited as
// one address is: three recommendations a minute, counted whether or not
// they are taken; another browser at the same address is not held back.
TEST_F(Feedback, RecommendationsAreLimitedPerBrowserToo) {
  auto rec = [&](const std::string& browser, const std::string& ip) {
    return recommend(json::serialize(json::object{{"code", "ABCDEF"}, {"token", "00112233445566778899aabbccddeeff"},
                                                         {"stars", 5}, {"text", ""}, {"lang", "en"}, {"browser", browser}}),
                           ip)
        .outcome;
  };
  for (int i = 1; i <= 3; ++i) EXPECT_NE(rec("browser-x", "10.2.0." + std::to_string(i)), Outcome::RateLimited);
  EXPECT_EQ(rec("browser-x", "10.2.0.4"), Outcome::RateLimited);
  EXPECT_NE(rec("browser-y", "10.2.0.4"), Outcome::RateLimited);
  EXPECT_EQ(rec(std::string(65, 'b'), "10.2.0.5"), Outcome::BadRequest);
  clock_ += 61000;
  EXPECT_NE(rec("browser-x", "10.2.0.6"), Outcome::RateLimited);
}

}  // namespace
