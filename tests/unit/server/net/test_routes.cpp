// The API's route table (server/net/routes.cpp): which handler answers a
// method and path, its path parameters, and 404 against 405.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "server/net/routes.h"
#include "server/stores/store.h"
#include "server/tables/hub.h"
#include "temp_db.h"

using namespace makruk;
using namespace makruk::server;
namespace json = boost::json;

namespace {

class Routes : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_sqlite_store(db_.path());
    hub_ = std::make_unique<Hub>(*store_, [](std::function<void()> f) { f(); }, [] { return int64_t(1764460800000); });
    hub_->load();
    community_ = std::make_unique<Community>(*store_, [] { return int64_t(1764460800000); });
    lobby_ = std::make_unique<Lobby>(
        Hub::lobby_tables(*hub_, 1, [this](size_t, std::function<void(Hub&)> work) { work(*hub_); }),
        [] { return int64_t(1764460800000); }, [](std::function<void()> f) { f(); });
    notices_ = std::make_unique<TurnNotices>(
        Hub::notices_tables(1, [this](size_t, std::function<void(Hub&)> work) { work(*hub_); }),
        [] { return int64_t(1764460800000); }, [](std::function<void()> f) { f(); });
    tournaments_ = std::make_unique<Tournaments>(
        *store_,
        Tournaments::Gate{[this](const std::string& ip) { return hub_->count_table(ip); },
                          [this](const std::string& ip, bool wrong) { return hub_->code_guess_allowed(ip, wrong); }},
        [] { return int64_t(1764460800000); });
    parts_ = std::make_unique<routes::Parts>(routes::Parts{
        *hub_, *community_,
        [this](const std::string& code, const std::string& token, const std::string& ip) {
          return hub_->recommending_seat(code, token, ip);
        },
        *lobby_, *notices_, *tournaments_});
  }
  void TearDown() override {
    parts_.reset();
    tournaments_.reset();
    notices_.reset();
    lobby_.reset();
    community_.reset();
    hub_.reset();
    store_.reset();
    db_.clear();
  }
  static routes::ApiRequest request(routes::Method m, std::string_view target, std::string_view body = "") {
    const size_t q = target.find('?');
    routes::ApiRequest r;
    r.method = m;
    r.path = target.substr(0, q);
    r.query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    r.body = body;
    r.ip = "10.0.0.1";
    r.base_url = "https://makruk.example";
    return r;
  }
  Answer ask(routes::Method m, std::string_view target, std::string_view body = "") {
    return routes::answer(*parts_, request(m, target, body));
  }
  static std::string msg(const Answer& r) {
    json::value v = json::parse(r.body);
    return v.is_object() && v.as_object().contains("msg") ? std::string(v.at("msg").as_string()) : "";
  }

  testing_helpers::TempDb db_{"makruk-routes"};
  std::unique_ptr<Store> store_;
  std::unique_ptr<Hub> hub_;
  std::unique_ptr<Community> community_;
  std::unique_ptr<Lobby> lobby_;
  std::unique_ptr<TurnNotices> notices_;
  std::unique_ptr<Tournaments> tournaments_;
  std::unique_ptr<routes::Parts> parts_;
};

using routes::Method;

TEST_F(Routes, EachPathAndMethodFindsItsHandler) {
  EXPECT_EQ(ask(Method::Get, "/api/lobby").outcome, Outcome::Ok);
  EXPECT_EQ(ask(Method::Get, "/readyz").outcome, Outcome::Ok);
  Answer created = ask(Method::Post, "/api/parties", R"({"name":"Somchai"})");
  ASSERT_EQ(created.outcome, Outcome::Created) << created.body;
  const std::string code(json::parse(created.body).at("code").as_string());
  // The code in any case; a key in the query.
  std::string lower = code;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  Answer got = ask(Method::Get, "/api/parties/" + lower + "?x=1");
  ASSERT_EQ(got.outcome, Outcome::Ok) << got.body;
  EXPECT_EQ(json::parse(got.body).at("party").at("code").as_string(), code);
  EXPECT_EQ(ask(Method::Post, "/api/parties/" + code + "/join", R"({"name":"Dara"})").outcome, Outcome::Ok);
  EXPECT_EQ(ask(Method::Get, "/api/parties/" + code + "/qr.svg").type, "image/svg+xml");
  EXPECT_EQ(ask(Method::Get, "/api/parties/" + code + "/event.ics").outcome, Outcome::NotFound);  // no start time: the hub's answer
  EXPECT_EQ(ask(Method::Get, "/api/feedback").outcome, Outcome::Ok);
  EXPECT_EQ(ask(Method::Get, "/api/recommendations").outcome, Outcome::Ok);
  EXPECT_EQ(ask(Method::Get, "/api/push/key").outcome, Outcome::Unavailable);  // no push set up here: turn notifications' answer
}

// The community's routes are answered on its own thread and the lobby's on
// its own, never a hub's: the route table says which, and they answer them.
TEST_F(Routes, TheCommunitysAndTheLobbysRoutesRunOnTheirOwnThreads) {
  using routes::Runs;
  for (auto [m, target] : std::vector<std::pair<Method, std::string>>{{Method::Get, "/api/feedback"},
                                                                      {Method::Post, "/api/feedback"},
                                                                      {Method::Get, "/api/recommendations"},
                                                                      {Method::Post, "/api/recommendations"},
                                                                      {Method::Get, "/api/admin/feedback"},
                                                                      {Method::Post, "/api/admin/feedback/12"},
                                                                      {Method::Get, "/api/admin/recommendations"},
                                                                      {Method::Post, "/api/admin/recommendations/3"}})
    EXPECT_EQ(routes::runs_on(request(m, target)), Runs::OnCommunity) << target;
  EXPECT_EQ(routes::runs_on(request(Method::Get, "/api/lobby")), Runs::OnLobby);
  EXPECT_EQ(json::parse(ask(Method::Get, "/api/lobby").body), json::parse(R"({"waiting":0,"playing":0})"));
  for (auto [m, target] : std::vector<std::pair<Method, std::string>>{{Method::Post, "/api/parties"},
                                                                      {Method::Get, "/api/parties/ABCDEF"},
                                                                      {Method::Get, "/readyz"},
                                                                      {Method::Get, "/api/nothing"},
                                                                      {Method::Other, "/api/feedback"}})
    EXPECT_EQ(routes::runs_on(request(m, target)), Runs::OnHub) << target;
  Answer posted = ask(Method::Post, "/api/feedback", R"({"kind":"feedback","text":"Lovely board"})");
  ASSERT_EQ(posted.outcome, Outcome::Created) << posted.body;
  EXPECT_EQ(json::parse(ask(Method::Get, "/api/feedback").body).at("items").as_array().size(), 1u);
  // A recommendation asks the tables whose seat the token is: none here.
  EXPECT_EQ(ask(Method::Post, "/api/recommendations",
                R"({"code":"ABCDEF","token":"00112233445566778899aabbccddeeff","stars":5})")
                .outcome,
            Outcome::Forbidden);
}

// Tournaments' routes run on their own thread and name no table (no hub is
// asked for them); each reaches its handler.
TEST_F(Routes, TheTournamentsRoutesRunOnTheirOwnThreadAndNameNoTable) {
  using routes::Runs;
  for (auto [m, target] : std::vector<std::pair<Method, std::string>>{{Method::Post, "/api/tournaments"},
                                                                      {Method::Get, "/api/tournaments/ABCDEF"},
                                                                      {Method::Post, "/api/tournaments/ABCDEF/join"},
                                                                      {Method::Post, "/api/tournaments/ABCDEF/act"},
                                                                      {Method::Get, "/api/tournaments/ABCDEF/standings.csv"},
                                                                      {Method::Get, "/api/tournaments/ABCDEF/games.pgn"},
                                                                      {Method::Get, "/api/tournaments/ABCDEF/qr.svg"}}) {
    EXPECT_EQ(routes::runs_on(request(m, target)), Runs::OnTournaments) << target;
    EXPECT_EQ(routes::table_code(request(m, target)), "") << target;
  }
  Answer made = ask(Method::Post, "/api/tournaments", R"({"format":"swiss","rounds":3})");
  ASSERT_EQ(made.outcome, Outcome::Created) << made.body;
  const std::string code(json::parse(made.body).at("code").as_string());
  EXPECT_EQ(ask(Method::Post, "/api/tournaments/" + code + "/join", R"({"name":"Dara"})").outcome, Outcome::Created);
  EXPECT_EQ(json::parse(ask(Method::Get, "/api/tournaments/" + code).body).at("players").as_array().size(), 1u);
  EXPECT_EQ(ask(Method::Post, "/api/tournaments/" + code + "/act", R"({"token":"x","action":"start"})").outcome,
            Outcome::Forbidden);
  EXPECT_EQ(ask(Method::Get, "/api/tournaments/" + code + "/standings.csv").type, "text/csv; charset=utf-8");
  EXPECT_EQ(ask(Method::Get, "/api/tournaments/" + code + "/games.pgn").outcome, Outcome::Ok);
  const Answer qr = ask(Method::Get, "/api/tournaments/" + code + "/qr.svg");
  EXPECT_EQ(qr.type, "image/svg+xml");
  EXPECT_EQ(ask(Method::Get, "/api/tournaments/ZZZZZZ/qr.svg").outcome, Outcome::NotFound);
  EXPECT_EQ(ask(Method::Get, "/api/tournaments/ZZZZZZ").outcome, Outcome::NotFound);
}

TEST_F(Routes, AWrongMethodIs405AndAnUnknownPath404) {
  for (auto [m, target] : std::vector<std::pair<Method, std::string>>{{Method::Get, "/api/parties"},
                                                                      {Method::Other, "/api/lobby"},
                                                                      {Method::Post, "/api/lobby"},
                                                                      {Method::Get, "/api/parties/ABCDEF/join"},
                                                                      {Method::Get, "/api/push/subscribe"},
                                                                      {Method::Get, "/api/admin/feedback/12"}}) {
    Answer r = ask(m, target);
    EXPECT_EQ(r.outcome, Outcome::MethodRefused) << target;
    EXPECT_EQ(msg(r), "request.method") << target;
  }
  for (const std::string target : {"/api/nothing", "/api/parties/ABCDEF/join/more", "/api", "/api/", "/api/lobby/",
                                   "/api/admin/feedback/12/x", "//api/lobby", "api/lobby", ""}) {
    Answer r = ask(Method::Get, target);
    EXPECT_EQ(r.outcome, Outcome::NotFound) << target;
    EXPECT_EQ(msg(r), "request.no-endpoint") << target;
  }
  // A route whose feature is off answers as if it were not there.
  EXPECT_EQ(ask(Method::Post, "/api/test/clock", R"({"advanceMs":1})").outcome, Outcome::NotFound);
  // Without an admin secret the maintainers' routes are not there either; the
  // id is the path's parameter.
  EXPECT_EQ(ask(Method::Post, "/api/admin/feedback/12", R"({"hidden":true})").outcome, Outcome::NotFound);
}

TEST_F(Routes, AMalformedCodeGoesToTheHubAndCountsAsAWrongGuess) {
  for (int i = 0; i < 10; ++i) EXPECT_EQ(ask(Method::Get, "/api/parties/no-such-" + std::to_string(i)).outcome, Outcome::NotFound);
  EXPECT_EQ(ask(Method::Get, "/api/parties/").outcome, Outcome::RateLimited);  // an empty code too, once limited
}

}  // namespace
