// Integration tests against a real `makruk serve` process, over HTTP and
// WebSocket, with its SQLite database in a temporary folder.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zlib.h>

#include "push_receiver.h"
#include "server/net/static_files.h"
#include "server/push/webpush.h"
#include "server/stores/store.h"
#include "server/tables/hub.h"
#include "server_process.h"
#include "proof_of_work.h"
#include "temp_pg.h"

using namespace std::chrono_literals;
using namespace makruk::testing;

namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = std::filesystem::temp_directory_path() /
            ("makruk-it-" + std::to_string(getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(data_);
    // Every client comes from 127.0.0.1: seekers there may be paired with each other.
    server_ = std::make_unique<Server>(data_, std::vector<std::string>{"--pair-same-address"});
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(data_);
  }
  uint16_t port() const { return server_->port(); }

  // Creates a table and seats a second player; returns {code, host token, guest token}.
  std::tuple<std::string, std::string, std::string> two_players(json::object create) {
    Reply c = request(port(), http::verb::post, "/api/parties", json::serialize(create));
    EXPECT_EQ(c.status, 201) << json::serialize(c.body);
    std::string code = str(c.body, "code");
    Reply j = request(port(), http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
    EXPECT_EQ(j.status, 200);
    EXPECT_EQ(j.body.at("seat").as_int64(), 1);
    return {code, str(c.body, "token"), str(j.body, "token")};
  }

  std::filesystem::path data_;
  std::unique_ptr<Server> server_;
};

}  // namespace

TEST_F(ServerTest, TwoPlayersCreateJoinAndPlayToCheckmate) {
  auto [code, hostToken, guestToken] =
      two_players({{"name", "Somchai"}, {"fen", "6k1/8/8/8/8/8/R7/1R4K1 w - - 0 1"}});
  EXPECT_EQ(code.size(), 6u);
  WsClient host(port()), guest(port()), watcher(port());
  host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  EXPECT_EQ(host.wait_for("welcome").at("seat").as_int64(), 0);
  guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
  EXPECT_EQ(guest.wait_for("welcome").at("seat").as_int64(), 1);
  watcher.send({{"t", "hello"}, {"code", code}});
  EXPECT_TRUE(watcher.wait_for("welcome").at("seat").is_null());
  EXPECT_EQ(str(host.wait_for("party", [](auto& m) { return str(m, "status") == "ready"; }), "status"), "ready");

  guest.send({{"t", "start"}, {"id", "g1"}});  // only the host may start
  EXPECT_EQ(str(guest.wait_for("error"), "code"), "forbidden");
  host.send({{"t", "start"}, {"id", "s1"}});
  host.wait_for("ack");
  json::value s0 = guest.wait_for("state");
  EXPECT_EQ(s0.at("v").as_int64(), 0);
  EXPECT_EQ(s0.at("white").as_int64(), 0);

  host.send({{"t", "move"}, {"v", 0}, {"move", "a2a7"}, {"id", "m1"}});
  EXPECT_EQ(str(host.wait_for("ack"), "id"), "m1");
  guest.wait_for("state", at_version(1));
  guest.send({{"t", "move"}, {"v", 1}, {"move", "g8f8"}});
  guest.wait_for("ack");
  host.wait_for("state", at_version(2));
  host.send({{"t", "move"}, {"v", 2}, {"move", "b1b8"}});
  std::string gameId;
  for (WsClient* c : {&host, &guest, &watcher}) {
    json::value s = c->wait_for("state", at_version(3));
    EXPECT_EQ(str(s, "result"), "1-0");
    EXPECT_EQ(str(s, "reason"), "checkmate");
    EXPECT_EQ(s.at("san").as_array().back().as_string(), "Rb8#");
    EXPECT_TRUE(s.at("legal").as_array().empty());
    gameId = str(s, "gameId");
  }
  // The game by its own link, as JSON and as a PGN file.
  ASSERT_EQ(gameId.size(), 12u);
  Reply record = request(port(), http::verb::get, "/api/games/" + gameId);
  ASSERT_EQ(record.status, 200) << record.text;
  EXPECT_EQ(str(record.body.at("game"), "result"), "1-0");
  EXPECT_EQ(str(record.body.at("game"), "reason"), "checkmate");
  EXPECT_EQ(record.body.at("game").at("san").as_array().back().as_string(), "Rb8#");
  Reply pgn = request(port(), http::verb::get, "/api/games/" + gameId + ".pgn");
  ASSERT_EQ(pgn.status, 200);
  EXPECT_EQ(pgn.header("content-type"), "application/x-chess-pgn; charset=utf-8");
  EXPECT_NE(pgn.text.find("[Result \"1-0\"]"), std::string::npos) << pgn.text;
  EXPECT_NE(pgn.text.find("Rb8# {checkmate} 1-0"), std::string::npos) << pgn.text;
  EXPECT_EQ(request(port(), http::verb::get, "/api/games/000000000000").status, 404);
  // The watcher cannot act, and moves after the end are refused.
  watcher.send({{"t", "resign"}, {"v", 3}});
  EXPECT_EQ(str(watcher.wait_for("error"), "code"), "forbidden");
  guest.send({{"t", "move"}, {"v", 3}, {"move", "f8e8"}});
  EXPECT_EQ(str(guest.wait_for("error"), "code"), "conflict");
  // Rematch by agreement: the guest offers, the watcher cannot accept, the
  // host declines; offered again and accepted, the colours swap.
  guest.send({{"t", "rematch"}});
  auto offered_by = [](int64_t seat) {
    return [seat](const json::value& m) {
      const json::value& by = m.at("rematch").at("offeredBy");
      return seat < 0 ? by.is_null() : by.is_int64() && by.as_int64() == seat;
    };
  };
  host.wait_for("party", offered_by(1));
  watcher.wait_for("party", offered_by(1));
  watcher.send({{"t", "rematch"}});
  EXPECT_EQ(str(watcher.wait_for("error"), "code"), "forbidden");
  host.send({{"t", "decline-rematch"}});
  // Waits for the decline itself: a table message from before it (the
  // watcher's arrival, announced after a short delay) has no offer either.
  json::value declined = guest.wait_for("party", [](const json::value& m) {
    const json::value& r = m.at("rematch");
    return r.at("offeredBy").is_null() && r.at("declinedBy").is_int64();
  });
  EXPECT_EQ(declined.at("rematch").at("declinedBy").as_int64(), 0);
  guest.send({{"t", "rematch"}});
  host.wait_for("party", offered_by(1));
  host.send({{"t", "rematch"}});
  json::value next = guest.wait_for("state", [](auto& m) { return m.at("number").as_int64() == 2; });
  EXPECT_EQ(next.at("white").as_int64(), 1);
  json::value party2 = watcher.wait_for("party", [](auto& m) { return m.at("gameNumber").as_int64() == 2; });
  EXPECT_TRUE(party2.at("rematch").at("offeredBy").is_null());
  EXPECT_TRUE(party2.at("rematch").at("declinedBy").is_null());
}

TEST_F(ServerTest, GameFromTheStartPositionAndResignation) {
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}, {"variant", "ouk"}});
  WsClient host(port()), guest(port());
  both_hello(host, guest, code, hostToken, guestToken);
  host.send({{"t", "start"}});
  json::value s = guest.wait_for("state");
  EXPECT_EQ(str(s, "fen"), "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1");
  EXPECT_EQ(s.at("legal").as_array().size(), 25u);
  host.send({{"t", "move"}, {"v", 0}, {"move", "d1b2"}});  // the king's first-move jump
  s = guest.wait_for("state", at_version(1));
  EXPECT_EQ(s.at("san").as_array().back().as_string(), "Kb2");
  guest.send({{"t", "resign"}, {"v", 1}});
  s = host.wait_for("state", at_version(2));
  EXPECT_EQ(str(s, "result"), "1-0");
  EXPECT_EQ(str(s, "reason"), "resignation");
}

TEST_F(ServerTest, DeclarationModeStartAndStopCounting) {
  // Black is a bare king against king and rook: it may declare a piece count.
  auto [code, hostToken, guestToken] =
      two_players({{"name", "Somchai"}, {"counting", "declare"}, {"fen", "8/8/4k3/8/8/2R5/8/3K4 w - - 0 1"}});
  WsClient host(port()), guest(port());
  host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
  host.send({{"t", "start"}});
  json::value s = guest.wait_for("state");
  EXPECT_TRUE(s.at("count").is_null());
  EXPECT_TRUE(s.at("canCount").at("b").as_bool());
  EXPECT_FALSE(s.at("canCount").at("w").as_bool());
  host.send({{"t", "count"}, {"v", 0}});  // White does not qualify
  EXPECT_EQ(str(host.wait_for("error"), "code"), "bad-request");
  guest.send({{"t", "count"}, {"v", 0}});  // on White's turn: D5
  s = host.wait_for("state", at_version(1));
  EXPECT_EQ(str(s.at("count"), "side"), "b");
  EXPECT_EQ(str(s.at("count"), "kind"), "piece");
  EXPECT_EQ(s.at("count").at("n").as_int64(), 3);
  EXPECT_EQ(s.at("count").at("limit").as_int64(), 16);
  EXPECT_EQ(str(s, "turn"), "w");
  host.send({{"t", "move"}, {"v", 1}, {"move", "c3c4"}});
  guest.wait_for("state", at_version(2));
  guest.send({{"t", "move"}, {"v", 2}, {"move", "e6e5"}});
  s = host.wait_for("state", at_version(3));
  EXPECT_EQ(s.at("count").at("n").as_int64(), 4);
  guest.send({{"t", "stop"}, {"v", 3}});
  s = host.wait_for("state", at_version(4));
  EXPECT_TRUE(s.at("count").is_null());
  guest.send({{"t", "stop"}, {"v", 4}});
  EXPECT_EQ(str(guest.wait_for("error"), "code"), "bad-request");
}

TEST_F(ServerTest, GameAgainstTheCpu) {
  Reply c = request(port(), http::verb::post, "/api/parties", R"({"name":"Somchai","cpu":1})");
  ASSERT_EQ(c.status, 201);
  EXPECT_EQ(c.body.at("party").at("players").as_array()[1].at("cpu").as_int64(), 1);
  WsClient me(port());
  me.send({{"t", "hello"}, {"code", str(c.body, "code")}, {"token", str(c.body, "token")}});
  json::value s = me.wait_for("state");
  EXPECT_EQ(s.at("white").as_int64(), 0);
  int64_t v = 0;
  for (const char* move : {"e3e4", "d3d4"}) {
    me.send({{"t", "move"}, {"v", v}, {"move", move}});
    me.wait_for("state", at_version(v + 1));
    const auto mine = std::chrono::steady_clock::now();
    s = me.wait_for("state", at_version(v + 2), 30s);  // the CPU's
    ASSERT_FALSE(s.is_null());
    // Level 1 searches in a few milliseconds but answers after a short pause
    // (at least three quarters of 0.95 s from when the move was taken, which
    // is a little before this client heard of it), so that it does not feel abrupt.
    EXPECT_GE(std::chrono::steady_clock::now() - mine, 500ms);
    EXPECT_EQ(str(s, "turn"), "w");
    v += 2;
  }
  // Against the CPU a rematch needs no agreement: the CPU accepts at once.
  me.send({{"t", "resign"}, {"v", v}});
  me.wait_for("state", at_version(v + 1));
  me.send({{"t", "rematch"}});
  EXPECT_EQ(me.wait_for("state", [](auto& m) { return m.at("number").as_int64() == 2; }).at("v").as_int64(), 0);
}

// Finding an opponent over the real server: two seekers are paired into a
// started table and play; a third waits (the lobby says so) and leaves the
// queue when its connection closes.
TEST_F(ServerTest, FindAnOpponent) {
  auto seek = [](const std::string& name, const std::string& browser) {
    return json::object{{"t", "seek"}, {"name", name}, {"browser", browser}, {"variant", "ouk"}, {"counting", ""},
                        {"mode", "live"}};
  };
  WsClient a(port()), b(port());
  a.send(seek("Somchai", "browser-a"));
  a.wait_for("seeking");
  b.send(seek("Dara", "browser-b"));
  json::value pa = a.wait_for("paired"), pb = b.wait_for("paired");
  ASSERT_FALSE(pa.is_null());
  ASSERT_FALSE(pb.is_null());
  EXPECT_EQ(str(pa, "code"), str(pb, "code"));
  EXPECT_EQ(pa.at("party").at("variant").as_string(), "ouk");
  WsClient host(port()), guest(port());
  host.send({{"t", "hello"}, {"code", str(pa, "code")}, {"token", str(pa, "token")}});
  guest.send({{"t", "hello"}, {"code", str(pb, "code")}, {"token", str(pb, "token")}});
  json::value st = guest.wait_for("state");
  EXPECT_EQ(st.at("v").as_int64(), 0);
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}});
  EXPECT_FALSE(guest.wait_for("state", at_version(1)).is_null());

  {
    WsClient c(port());
    c.send(seek("Noi", "browser-c"));
    c.wait_for("seeking");
    Reply lobby = request(port(), http::verb::get, "/api/lobby");
    EXPECT_EQ(lobby.status, 200);
    EXPECT_EQ(lobby.body.at("waiting").as_int64(), 1);
    EXPECT_EQ(lobby.body.at("playing").as_int64(), 2);
  }  // its page closes
  for (int i = 0; i < 50 && request(port(), http::verb::get, "/api/lobby").body.at("waiting").as_int64() != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(request(port(), http::verb::get, "/api/lobby").body.at("waiting").as_int64(), 0);
}

// A draw offered, declined, offered again and accepted; the CPU answers an
// offer by its evaluation (at the start it is not worse: it declines).
TEST_F(ServerTest, DrawOffers) {
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}});
  WsClient host(port()), guest(port());
  both_hello(host, guest, code, hostToken, guestToken);
  host.send({{"t", "start"}});
  guest.wait_for("state", at_version(0));
  host.send({{"t", "offer-draw"}, {"v", 0}});
  json::value s = guest.wait_for("state", at_version(1));
  EXPECT_EQ(str(s, "drawOffer"), "w");
  host.send({{"t", "accept-draw"}, {"v", 1}});  // not one's own offer
  EXPECT_EQ(str(host.wait_for("error"), "code"), "bad-request");
  EXPECT_FALSE(s.at("canOfferDraw").at("w").as_bool());  // an offer stands
  guest.send({{"t", "decline-draw"}, {"v", 1}});
  s = host.wait_for("state", at_version(2));
  EXPECT_TRUE(s.at("drawOffer").is_null());
  // The one who offered is told it was declined, and may offer again only after a move.
  EXPECT_EQ(str(s, "drawDeclined"), "b");
  EXPECT_FALSE(s.at("canOfferDraw").at("w").as_bool());
  EXPECT_TRUE(s.at("canOfferDraw").at("b").as_bool());
  host.send({{"t", "offer-draw"}, {"v", 2}});
  EXPECT_EQ(str(host.wait_for("error"), "code"), "bad-request");
  host.send({{"t", "move"}, {"v", 2}, {"move", "e3e4"}});
  s = guest.wait_for("state", at_version(3));
  EXPECT_TRUE(s.at("drawDeclined").is_null());  // told until the offering side moves
  EXPECT_TRUE(s.at("canOfferDraw").at("w").as_bool());
  guest.send({{"t", "offer-draw"}, {"v", 3}});
  host.wait_for("state", at_version(4));
  host.send({{"t", "accept-draw"}, {"v", 4}});
  s = guest.wait_for("state", at_version(5));
  EXPECT_EQ(str(s, "result"), "1/2-1/2");
  EXPECT_EQ(str(s, "reason"), "agreement");

  Reply c = request(port(), http::verb::post, "/api/parties", R"({"name":"Somchai","cpu":2})");
  ASSERT_EQ(c.status, 201);
  WsClient me(port());
  me.send({{"t", "hello"}, {"code", str(c.body, "code")}, {"token", str(c.body, "token")}});
  me.wait_for("state", at_version(0));
  me.send({{"t", "offer-draw"}, {"v", 0}});
  s = me.wait_for("state", at_version(2), 30s);  // the offer, then the CPU's answer
  ASSERT_FALSE(s.is_null());
  EXPECT_TRUE(s.at("drawOffer").is_null());
  EXPECT_EQ(str(s, "drawDeclined"), "b");  // the CPU declined: the player is told
  EXPECT_EQ(str(s, "result"), "*");
  EXPECT_EQ(s.at("moves").as_array().size(), 0u);  // it is still White's (the player's) turn
  me.send({{"t", "move"}, {"v", 2}, {"move", "e3e4"}});
  EXPECT_FALSE(me.wait_for("state", at_version(4), 30s).is_null());  // and the CPU plays on
}

// A game's record (JSON) goes out in gzip to a browser that takes it, and
// reads the same once unpacked; to one that does not, as it is.
TEST_F(ServerTest, GameRecordsGoOutInGzip) {
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}});
  WsClient host(port()), guest(port());
  both_hello(host, guest, code, hostToken, guestToken);
  host.send({{"t", "start"}});
  json::value s = guest.wait_for("state", at_version(0));
  const std::string id = str(s, "gameId");
  for (int v = 0; v < 16; ++v) {  // each pawn a step forward
    const std::string file(1, char('a' + v / 2));
    const std::string move = v % 2 ? file + "6" + file + "5" : file + "3" + file + "4";
    (v % 2 ? guest : host).send({{"t", "move"}, {"v", v}, {"move", move}});
    s = host.wait_for("state", at_version(v + 1));
    ASSERT_FALSE(s.is_null());
  }
  Reply plain = request(port(), http::verb::get, "/api/games/" + id);
  ASSERT_EQ(plain.status, 200);
  ASSERT_GE(plain.text.size(), 1024u);
  EXPECT_EQ(plain.header("content-encoding"), "");
  RequestOptions o;
  o.headers.push_back({"Accept-Encoding", "gzip, deflate, br"});
  Reply packed = request(port(), http::verb::get, "/api/games/" + id, "", o);
  ASSERT_EQ(packed.status, 200);
  EXPECT_EQ(packed.header("content-encoding"), "gzip");
  EXPECT_EQ(packed.header("vary"), "Accept-Encoding");
  ASSERT_GE(packed.text.size(), 2u);
  EXPECT_EQ(uint8_t(packed.text[0]), 0x1f);
  EXPECT_EQ(uint8_t(packed.text[1]), 0x8b);
  EXPECT_LT(packed.text.size(), plain.text.size() / 2);
  // Unpacked, the same record.
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(plain.text.size() + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(packed.text.data());
  z.avail_in = uInt(packed.text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  EXPECT_EQ(out, plain.text);
  // A short answer goes as it is.
  EXPECT_EQ(request(port(), http::verb::get, "/api/lobby", "", o).header("content-encoding"), "");
}

TEST_F(ServerTest, BadInputIsRefusedAndChangesNothing) {
  // HTTP
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", "not json").status, 400);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", R"({"name":""})").status, 400);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", R"({"name":")" + std::string(25, 'x') + "\"}").status, 400);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", R"({"name":"a","variant":"chess"})").status, 400);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", R"({"name":"a","counting":"sometimes"})").status, 400);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", R"({"name":"a","fen":"8/8/8"})").status, 400);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties", R"({"name":5})").status, 400);
  // The network layer's own refusals carry a message id, as the hub's do.
  Reply nothing = request(port(), http::verb::get, "/api/nothing");
  EXPECT_EQ(nothing.status, 404);
  EXPECT_EQ(str(nothing.body, "msg"), "request.no-endpoint");
  EXPECT_EQ(str(nothing.body, "error"), "no such endpoint");
  Reply large = request(port(), http::verb::post, "/api/parties", std::string(20000, ' '));
  EXPECT_EQ(large.status, 413);
  EXPECT_EQ(str(large.body, "msg"), "request.too-large");
  EXPECT_EQ(str(large.body, "code"), "bad-request");
  EXPECT_TRUE(large.body.at("args").as_object().empty());
  Reply method = request(port(), http::verb::put, "/index.html", "{}");
  EXPECT_EQ(method.status, 405);
  EXPECT_EQ(str(method.body, "msg"), "request.method");
  EXPECT_EQ(str(request(port(), http::verb::get, "/api/parties").body, "msg"), "request.method");
  // Markup in a name is kept as text, byte for byte.
  Reply c = request(port(), http::verb::post, "/api/parties", R"({"name":"<b>Somchai</b>"})");
  ASSERT_EQ(c.status, 201);
  std::string code = str(c.body, "code");
  EXPECT_EQ(c.body.at("party").at("players").as_array()[0].at("name").as_string(), "<b>Somchai</b>");
  EXPECT_EQ(request(port(), http::verb::get, "/api/parties/" + code + "/qr.svg").status, 200);

  // WebSocket
  WsClient ws(port());
  ws.send_raw("{not json");
  EXPECT_EQ(str(ws.wait_for("error"), "code"), "bad-request");
  ws.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}});
  EXPECT_EQ(str(ws.wait_for("error"), "code"), "bad-request");  // no hello yet
  ws.send({{"t", "hello"}, {"code", code}, {"token", "0123456789abcdef0123456789abcdef"}});
  EXPECT_EQ(str(ws.wait_for("error"), "code"), "forbidden");  // a token of no seat
  ws.send({{"t", "hello"}, {"code", code}, {"token", str(c.body, "token")}});
  ws.wait_for("welcome");
  ws.send({{"t", "start"}});
  EXPECT_EQ(str(ws.wait_for("error"), "code"), "conflict");  // alone at the table
  ws.send({{"t", "dance"}});
  EXPECT_EQ(str(ws.wait_for("error"), "code"), "bad-request");
  ws.send_raw(std::string(5000, 'x'));  // over the message size limit: the server hangs up
  EXPECT_TRUE(ws.next(3s).is_null());
  EXPECT_TRUE(ws.closed());

  // Wrong codes are limited per address.
  int limited = 0;
  for (int i = 0; i < 12; ++i)
    limited += request(port(), http::verb::post, "/api/parties/ZZZZZZ/join", R"({"name":"x"})").status == 429;
  EXPECT_GE(limited, 2);
  EXPECT_EQ(request(port(), http::verb::post, "/api/parties/" + code + "/join", R"({"name":"x"})").status, 429);
  // Looking codes up or asking for their QR codes counts too, and so does a hello.
  EXPECT_EQ(request(port(), http::verb::get, "/api/parties/ZZZZZ2").status, 429);
  EXPECT_EQ(request(port(), http::verb::get, "/api/parties/" + code + "/qr.svg").status, 429);
  WsClient late(port());
  late.send({{"t", "hello"}, {"code", "ZZZZZ3"}});
  EXPECT_EQ(str(late.wait_for("error"), "code"), "rate-limited");

  // A code typed by hand still opens, once the page has done the work the
  // refusal asks for (the default 18 bits: a fraction of a second).
  auto refused = request(port(), http::verb::get, "/api/parties/" + code);
  ASSERT_EQ(refused.status, 429);
  auto asked = refused.body.as_object().at("proof").as_object();
  const std::string stamp(asked.at("challenge").as_string());
  const int bits = int(asked.at("bits").as_int64());
  EXPECT_EQ(bits, 18);
  const std::string proof = makruk::testing_pow::solve(stamp, bits);
  auto opened = request(port(), http::verb::get, "/api/parties/" + code + "?proof=" + proof);
  ASSERT_EQ(opened.status, 200) << opened.body;
  EXPECT_EQ(request(port(), http::verb::get, "/api/parties/" + code + "?proof=" + proof).status, 429);  // once
}

TEST_F(ServerTest, GameRulesAreEnforcedOverTheSocket) {
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}});
  WsClient host(port()), guest(port());
  host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
  host.send({{"t", "start"}});
  guest.wait_for("state");
  guest.send({{"t", "move"}, {"v", 0}, {"move", "e6e5"}});  // out of turn
  EXPECT_EQ(str(guest.wait_for("error"), "code"), "forbidden");
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e5"}});  // illegal
  EXPECT_EQ(str(host.wait_for("error"), "code"), "bad-request");
  host.send({{"t", "move"}, {"v", 7}, {"move", "e3e4"}});  // stale or future version
  EXPECT_EQ(str(host.wait_for("error"), "code"), "conflict");
  host.send({{"t", "claim"}, {"v", 0}});  // Makruk: no claims
  EXPECT_EQ(str(host.wait_for("error"), "code"), "bad-request");
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}});
  json::value s = guest.wait_for("state", at_version(1));
  EXPECT_EQ(str(s, "lastMove"), "e3e4");
}

TEST_F(ServerTest, KillNineLosesNothingConfirmed) {
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}});
  std::string fen;
  {
    WsClient host(port()), guest(port());
    host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
    guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
    host.send({{"t", "start"}});
    guest.wait_for("state");
    host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "w1"}});
    host.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
    guest.wait_for("state", at_version(1));
    guest.send({{"t", "move"}, {"v", 1}, {"move", "d6d5"}, {"id", "b1"}});
    guest.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
    fen = str(host.wait_for("state", at_version(2)), "fen");
  }
  server_->kill_hard();
  server_->start();
  WsClient host(port()), guest(port());
  host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  EXPECT_EQ(host.wait_for("welcome").at("seat").as_int64(), 0);
  json::value s = host.wait_for("state");
  EXPECT_EQ(s.at("v").as_int64(), 2);
  EXPECT_EQ(str(s, "fen"), fen);
  EXPECT_EQ(s.at("moves").as_array().size(), 2u);
  guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
  guest.wait_for("welcome");
  host.send({{"t", "move"}, {"v", 2}, {"move", "e4d5"}});
  EXPECT_EQ(guest.wait_for("state", at_version(3)).at("san").as_array().back().as_string(), "exd5");
  // A returning browser keeps its seat through the join endpoint too.
  Reply again = request(port(), http::verb::post, "/api/parties/" + code + "/join",
                        R"({"name":"Dara","token":")" + guestToken + "\"}");
  EXPECT_EQ(again.body.at("seat").as_int64(), 1);
}

// Web Push end to end: a real server process delivers to a push service
// started by the test on loopback, which checks the VAPID header and decrypts
// the payload with the subscription's private key, as a browser would.
TEST_F(ServerTest, TurnBasedTablePushesEachTurnToALoopbackPushService) {
  namespace wp = makruk::server::webpush;
  server_.reset();
  server_ = std::make_unique<Server>(data_, std::vector<std::string>{"--push-allow-http", "--test-clock"});
  makruk::testing::PushReceiver rx;
  Reply key = request(port(), http::verb::get, "/api/push/key");
  ASSERT_EQ(key.status, 200);
  std::string serverKey = str(key.body, "publicKey");
  EXPECT_EQ(wp::b64url_decode(serverKey)->size(), 65u);

  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}, {"mode", "turn"}});
  struct Browser {
    wp::KeyPair key = wp::KeyPair::generate();
    std::string auth = "sixteen-byte-key";
  } hostBrowser, guestBrowser;
  auto subscribe = [&](Browser& b, const std::string& path, const std::string& token, const char* lang) {
    json::object sub{{"endpoint", rx.url(path)},
                     {"keys", json::object{{"p256dh", wp::b64url_encode(b.key.public_raw())},
                                           {"auth", wp::b64url_encode(b.auth)}}}};
    json::object req{{"subscription", sub},
                     {"lang", lang},
                     {"tables", json::array{json::object{{"code", code}, {"token", token}}}}};
    Reply r = request(port(), http::verb::post, "/api/push/subscribe", json::serialize(req));
    EXPECT_EQ(r.status, 200) << json::serialize(r.body);
    EXPECT_EQ(r.body.at("subscribed").as_array().size(), 1u);
  };
  subscribe(hostBrowser, "/push/host", hostToken, "en");
  subscribe(guestBrowser, "/push/guest", guestToken, "th");

  // Checks a delivery as the push service and the browser would; returns its payload.
  auto received = [&](size_t i, const std::string& path, Browser& b) -> json::value {
    EXPECT_TRUE(rx.wait_for(i + 1, 20s)) << "no push " << i;
    auto all = rx.requests();
    if (all.size() <= i) return nullptr;
    const makruk::testing::PushRequest& req = all[i];
    EXPECT_EQ(req.method, "POST");
    EXPECT_EQ(req.path, path);
    EXPECT_EQ(req.header("content-encoding"), "aes128gcm");
    EXPECT_EQ(req.header("topic"), code);
    EXPECT_GT(std::stoi(req.header("ttl")), 0);
    std::string why;
    int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
    EXPECT_TRUE(wp::verify_vapid(req.header("authorization"), rx.origin(), now, &why)) << why;
    EXPECT_NE(req.header("authorization").find("k=" + serverKey), std::string::npos);
    auto plain = wp::decrypt(req.body, b.key, b.auth, &why);
    EXPECT_TRUE(plain) << why;
    return plain ? json::parse(*plain) : json::value(nullptr);
  };

  WsClient host(port()), guest(port());
  both_hello(host, guest, code, hostToken, guestToken);
  host.send({{"t", "start"}});
  guest.wait_for("state", at_version(0));
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}});
  guest.wait_for("state", at_version(1));
  json::value p = received(0, "/push/guest", guestBrowser);
  EXPECT_EQ(str(p, "kind"), "turn");
  EXPECT_EQ(str(p, "opponent"), "Somchai");
  EXPECT_EQ(str(p, "move"), "e4");
  EXPECT_EQ(str(p, "url"), "/p/" + code);
  EXPECT_EQ(str(p, "lang"), "th");

  // The guest's push service will say the subscription is gone (the third
  // push, after the host's): it is dropped.
  rx.enqueue({201, 410});
  guest.send({{"t", "move"}, {"v", 1}, {"move", "e6e5"}});
  host.wait_for("state", at_version(2));
  p = received(1, "/push/host", hostBrowser);
  EXPECT_EQ(str(p, "opponent"), "Dara");
  host.send({{"t", "move"}, {"v", 2}, {"move", "d3d4"}});
  EXPECT_TRUE(rx.wait_for(3, 20s));
  EXPECT_EQ(rx.requests()[2].path, "/push/guest");  // answered 410
  rx.enqueue({500});  // the host's service fails once: the push is retried
  guest.send({{"t", "move"}, {"v", 3}, {"move", "d6d5"}});
  host.wait_for("state", at_version(4));
  EXPECT_TRUE(rx.wait_for(5, 30s));
  auto all = rx.requests();
  ASSERT_GE(all.size(), 5u);
  EXPECT_EQ(all[3].path, "/push/host");
  EXPECT_EQ(all[4].path, "/push/host");  // the retry
  EXPECT_EQ(all[3].body.size(), all[4].body.size());

  // 45 days later the table ends; the host (still subscribed) is told.
  Reply clock = request(port(), http::verb::post, "/api/test/clock", R"({"advanceMs":3888000000})");
  EXPECT_EQ(clock.status, 200);
  json::value s = host.wait_for("state", at_version(5));
  EXPECT_EQ(str(s, "reason"), "expired");
  EXPECT_EQ(str(s, "result"), "1/2-1/2");
  p = received(5, "/push/host", hostBrowser);
  EXPECT_EQ(str(p, "kind"), "expired");
  host.send({{"t", "move"}, {"v", 5}, {"move", "e4d5"}});
  EXPECT_EQ(str(host.wait_for("error"), "code"), "conflict");
  // The expiry was pushed to both seats, but the guest's subscription was dropped.
  EXPECT_FALSE(rx.wait_for(7, 1500ms));
  EXPECT_EQ(rx.count(), 6u);
}

// A turn-based table out of memory ends when its 45 days have run out, with
// nobody asking for it: the store's list of such tables is asked once for
// the process, and each table ended by the hub that holds its code (here a
// code of the second hub when the server runs two), which pushes the end.
TEST_F(ServerTest, ATurnBasedTableOutOfMemoryEndsOnTimeAtItsOwnHub) {
  namespace wp = makruk::server::webpush;
  server_.reset();
  server_ = std::make_unique<Server>(data_, std::vector<std::string>{"--push-allow-http", "--test-clock"});
  makruk::testing::PushReceiver rx;
  std::string code, hostToken, guestToken;
  for (int i = 0; i < 40 && (code.empty() || makruk::server::shard_of(code, 2) != 1); ++i) {
    if (i % 8 == 7)  // past the address's tables a minute: a minute on
      ASSERT_EQ(request(port(), http::verb::post, "/api/test/clock", R"({"advanceMs":61000})").status, 200);
    std::tie(code, hostToken, guestToken) = two_players({{"name", "Somchai"}, {"mode", "turn"}});
  }
  ASSERT_EQ(makruk::server::shard_of(code, 2), 1u);
  wp::KeyPair browser = wp::KeyPair::generate();
  json::object sub{{"endpoint", rx.url("/push/host")},
                   {"keys", json::object{{"p256dh", wp::b64url_encode(browser.public_raw())},
                                         {"auth", wp::b64url_encode("sixteen-byte-key")}}}};
  Reply subscribed = request(port(), http::verb::post, "/api/push/subscribe",
                             json::serialize(json::object{{"subscription", sub},
                                                          {"lang", "en"},
                                                          {"tables", json::array{json::object{{"code", code},
                                                                                              {"token", hostToken}}}}}));
  ASSERT_EQ(subscribed.status, 200) << json::serialize(subscribed.body);
  {
    WsClient host(port()), guest(port());
    both_hello(host, guest, code, hostToken, guestToken);
    host.send({{"t", "start"}});
    guest.wait_for("state", at_version(0));
  }
  // Nobody at any table: six minutes on, every table has left memory.
  const int64_t pushes_before = int64_t(rx.count());
  auto in_memory = [&] { return metric(request(port(), http::verb::get, "/metrics").text, "tables_in_memory"); };
  // (Moving the clock ticks the hubs; a minute more while the connections'
  // ends are still on their way, since a table's idle time counts from them.)
  ASSERT_EQ(request(port(), http::verb::post, "/api/test/clock", R"({"advanceMs":360000})").status, 200);
  for (int i = 0; i < 100 && in_memory() != "0"; ++i) {
    std::this_thread::sleep_for(50ms);
    request(port(), http::verb::post, "/api/test/clock", R"({"advanceMs":60000})");
  }
  ASSERT_EQ(in_memory(), "0");
  // 45 days on: the table is ended from the store's list, and its end pushed.
  ASSERT_EQ(request(port(), http::verb::post, "/api/test/clock", R"({"advanceMs":3888000000})").status, 200);
  ASSERT_TRUE(rx.wait_for(size_t(pushes_before) + 1, 20s)) << "no push of the end";
  const auto all = rx.requests();
  std::string why;
  auto plain = wp::decrypt(all.back().body, browser, "sixteen-byte-key", &why);
  ASSERT_TRUE(plain) << why;
  EXPECT_EQ(str(json::parse(*plain), "kind"), "expired");
  Reply table = request(port(), http::verb::get, "/api/parties/" + code);
  EXPECT_EQ(str(table.body.at("party"), "status"), "expired");
}

TEST_F(ServerTest, TheTestClockAndPlainHttpEndpointsAreOffByDefault) {
  EXPECT_EQ(request(port(), http::verb::post, "/api/test/clock", R"({"advanceMs":1})").status, 404);
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}, {"mode", "turn"}});
  std::string key = makruk::server::webpush::b64url_encode(makruk::server::webpush::KeyPair::generate().public_raw());
  json::object req{{"subscription", json::object{{"endpoint", "http://127.0.0.1:9/push"},
                                                 {"keys", json::object{{"p256dh", key}, {"auth", "AAAAAAAAAAAAAAAAAAAAAA"}}}}},
                   {"tables", json::array{json::object{{"code", code}, {"token", guestToken}}}}};
  Reply r = request(port(), http::verb::post, "/api/push/subscribe", json::serialize(req));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(str(r.body, "error").find("https"), std::string::npos);
  // The VAPID key is made once and kept in the data folder.
  std::string first = str(request(port(), http::verb::get, "/api/push/key").body, "publicKey");
  server_->kill_hard();
  server_->start();
  EXPECT_EQ(str(request(port(), http::verb::get, "/api/push/key").body, "publicKey"), first);
  EXPECT_TRUE(std::filesystem::exists(data_ / "vapid.pem"));
}

// The web client's files go out in the encoding the browser takes, from the
// brotli and gzip copies the build keeps beside them; never one it refused.
TEST(StaticFiles, AreSentInTheEncodingTheBrowserTakes) {
  const auto root = std::filesystem::temp_directory_path() / ("makruk-web-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "assets");
  auto write = [&](const std::filesystem::path& rel, const std::string& text) {
    std::ofstream(root / rel, std::ios::binary) << text;
  };
  write("index.html", "<!doctype html><title>plain</title>");
  write("index.html.br", "BROTLI-INDEX");
  write("index.html.gz", "GZIP-INDEX");
  write("assets/app.js", "console.log('plain');");
  write("assets/app.js.gz", "GZIP-APP");  // no brotli copy of this one
  write("favicon.svg", "<svg/>");         // nor any copy of this one
  Server server(root.string() + "-data", {}, ServerSpawn{root.string()});
  auto get = [&](const std::string& target, const std::string& accept) {
    RequestOptions o;
    if (!accept.empty()) o.headers.push_back({"Accept-Encoding", accept});
    return request(server.port(), http::verb::get, target, "", o);
  };
  struct Case {
    std::string target, accept, body, encoding;
  };
  for (const Case& c : std::vector<Case>{
           {"/", "gzip, deflate, br", "BROTLI-INDEX", "br"},
           {"/p/ABCDEF", "br", "BROTLI-INDEX", "br"},  // a client-side route is index.html too
           {"/", "gzip", "GZIP-INDEX", "gzip"},
           {"/", "br;q=0, gzip;q=0.5", "GZIP-INDEX", "gzip"},
           {"/", "*", "BROTLI-INDEX", "br"},
           {"/", "br;q=0.0, *;q=0", "<!doctype html><title>plain</title>", ""},
           {"/", "", "<!doctype html><title>plain</title>", ""},
           {"/", "identity", "<!doctype html><title>plain</title>", ""},
           {"/assets/app.js", "br, gzip", "GZIP-APP", "gzip"},
           {"/assets/app.js", "br", "console.log('plain');", ""},
           {"/favicon.svg", "br, gzip", "<svg/>", ""},
       }) {
    SCOPED_TRACE(c.target + " with Accept-Encoding: " + c.accept);
    Reply r = get(c.target, c.accept);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.text, c.body);
    EXPECT_EQ(r.header("content-encoding"), c.encoding);
    EXPECT_EQ(r.header("vary").empty(), c.target == "/favicon.svg");
    EXPECT_EQ(r.header("content-type").rfind(c.target == "/assets/app.js" ? "text/javascript" : c.target == "/favicon.svg" ? "image/svg+xml" : "text/html", 0), 0u);
  }

  // A missing file is not found (not the client's page under its name); a
  // path without an extension is a route of the client.
  for (const std::string missing : {"/robots.txt", "/missing.js", "/assets/gone.css"}) {
    SCOPED_TRACE(missing);
    Reply r = get(missing, "br, gzip");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
  }
  EXPECT_EQ(get("/learn/makruk", "br").text, "BROTLI-INDEX");

  // Each copy has its own validator; a browser that holds the copy it would
  // get is answered 304 without a body, whatever else it lists.
  const Reply br = get("/", "br"), gz = get("/", "gzip"), plain = get("/", "");
  const std::string tag = br.header("etag");
  ASSERT_FALSE(tag.empty());
  EXPECT_EQ(tag.front(), '"');
  EXPECT_NE(tag, gz.header("etag"));
  EXPECT_NE(tag, plain.header("etag"));
  EXPECT_EQ(get("/p/ABCDEF", "br").header("etag"), tag);  // the same file under a client route
  auto conditional = [&](http::verb method, const std::string& target, const std::string& accept,
                         const std::string& if_none_match) {
    RequestOptions o;
    o.headers.push_back({"Accept-Encoding", accept});
    o.headers.push_back({"If-None-Match", if_none_match});
    return request(server.port(), method, target, "", o);
  };
  for (const std::string& held : {tag, "W/" + tag, "\"other\", " + tag, std::string("*")}) {
    SCOPED_TRACE("If-None-Match: " + held);
    Reply r = conditional(http::verb::get, "/", "br", held);
    EXPECT_EQ(r.status, 304);
    EXPECT_EQ(r.text, "");
    EXPECT_EQ(r.header("etag"), tag);
    EXPECT_EQ(r.header("content-encoding"), "br");
    EXPECT_EQ(r.header("vary"), "Accept-Encoding");
    EXPECT_EQ(r.header("cache-control"), "no-cache");
  }
  Reply head = conditional(http::verb::head, "/", "br", tag);
  EXPECT_EQ(head.status, 304);
  EXPECT_EQ(head.header("content-length"), "");
  // A validator of another copy, of nothing, or garbled: the whole file.
  for (const std::string& other : {gz.header("etag"), std::string("\"nothing\""), std::string("garbled"),
                                   tag.substr(0, tag.size() - 1)}) {
    SCOPED_TRACE("If-None-Match: " + other);
    Reply r = conditional(http::verb::get, "/", "br", other);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.text, "BROTLI-INDEX");
  }
  // The browser's gzip validator, when it now takes gzip only: 304 again.
  EXPECT_EQ(conditional(http::verb::get, "/", "gzip", gz.header("etag")).status, 304);

  // A new build while the server runs: the new bytes and a new validator at
  // once, and the old validator no longer answers 304.
  write("index.html.br", "BROTLI-INDEX, the next build");
  std::filesystem::last_write_time(root / "index.html.br",
                                   std::filesystem::last_write_time(root / "index.html.br") + 2s);
  Reply next = conditional(http::verb::get, "/", "br", tag);
  EXPECT_EQ(next.status, 200);
  EXPECT_EQ(next.text, "BROTLI-INDEX, the next build");
  EXPECT_NE(next.header("etag"), tag);
  EXPECT_EQ(conditional(http::verb::get, "/", "br", next.header("etag")).status, 304);
  // A file removed is no longer served from memory.
  std::filesystem::remove(root / "favicon.svg");
  EXPECT_EQ(get("/favicon.svg", "").status, 404);
  server.kill_hard();
  std::filesystem::remove_all(root);
  std::filesystem::remove_all(root.string() + "-data");
}

// The server on PostgreSQL (`--store postgresql://…`): a game played, the
// process killed with SIGKILL, started again: every acknowledged move is
// there. Runs when the test command has started a PostgreSQL server.
TEST(PostgresServer, AGameSurvivesKillNineAndTwoInstancesShareTheTables) {
  if (makruk::testing_helpers::TempPg::server().empty()) GTEST_SKIP() << "no PostgreSQL (MAKRUK_TEST_POSTGRES)";
  makruk::testing_helpers::TempPg db;
  const auto data = std::filesystem::temp_directory_path() / ("makruk-it-pg-" + std::to_string(getpid()));
  std::filesystem::remove_all(data);
  Server server(data, {"--store", db.url()});
  Reply c = request(server.port(), http::verb::post, "/api/parties", R"({"name":"Somchai"})");
  ASSERT_EQ(c.status, 201) << json::serialize(c.body);
  const std::string code = str(c.body, "code"), hostToken = str(c.body, "token");
  Reply j = request(server.port(), http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
  ASSERT_EQ(j.status, 200);
  const std::string guestToken = str(j.body, "token");
  std::string fen;
  {
    WsClient host(server.port()), guest(server.port());
    host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
    guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
    host.send({{"t", "start"}});
    guest.wait_for("state");
    host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "w1"}});
    host.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
    guest.send({{"t", "move"}, {"v", 1}, {"move", "d6d5"}, {"id", "b1"}});
    guest.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
    fen = str(host.wait_for("state", at_version(2)), "fen");
  }
  server.kill_hard();
  server.start();
  // A second instance on the same database, with a folder of its own.
  const auto data2 = data.string() + "-2";
  std::filesystem::remove_all(data2);
  Server second(data2, {"--store", db.url()});
  for (uint16_t port : {server.port(), second.port()}) {
    WsClient host(port);
    host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
    EXPECT_EQ(host.wait_for("welcome").at("seat").as_int64(), 0);
    json::value s = host.wait_for("state");
    EXPECT_EQ(s.at("v").as_int64(), 2);
    EXPECT_EQ(str(s, "fen"), fen);
  }
  // A move taken by the second instance is in the store: the first, started
  // again, reads it.
  {
    WsClient host(second.port());
    host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
    host.wait_for("state");
    host.send({{"t", "move"}, {"v", 2}, {"move", "e4d5"}, {"id", "w2"}});
    EXPECT_EQ(host.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); }).at("v").as_int64(), 3);
  }
  server.kill_hard();
  server.start();
  WsClient guest(server.port());
  guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
  EXPECT_EQ(guest.wait_for("state").at("san").as_array().back().as_string(), "exd5");
  second.kill_hard();
  server.kill_hard();
  std::filesystem::remove_all(data);
  std::filesystem::remove_all(data2);
}

// A game's link previews: /g/ID carries the players, the result and the
// picture in Open Graph tags (names escaped), and the pictures are PNGs of
// the sizes named; unknown games answer 404, pictures too.
TEST(GameLink, PreviewTagsAndPictures) {
  const auto root = std::filesystem::temp_directory_path() / ("makruk-og-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  std::ofstream(root / "index.html") << "<!doctype html><html><head>\n"
                                        "<meta name=\"description\" content=\"Play Makruk\" />\n"
                                        "<title>Makruk</title>\n</head><body></body></html>\n";
  Server server(root.string() + "-data", {"--public-url", "https://makruk.example"}, ServerSpawn{root.string()});
  const uint16_t port = server.port();
  Reply c = request(port, http::verb::post, "/api/parties",
                    R"({"name":"Som <b>\"chai\"</b>","fen":"6k1/8/8/8/8/8/R7/1R4K1 w - - 0 1"})");
  ASSERT_EQ(c.status, 201) << c.text;
  const std::string code = str(c.body, "code");
  Reply j = request(port, http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
  ASSERT_EQ(j.status, 200);
  WsClient host(port), guest(port);
  host.send({{"t", "hello"}, {"code", code}, {"token", str(c.body, "token")}});
  host.wait_for("welcome");
  guest.send({{"t", "hello"}, {"code", code}, {"token", str(j.body, "token")}});
  guest.wait_for("welcome");
  host.wait_for("party", [](auto& m) { return str(m, "status") == "ready"; });
  host.send({{"t", "start"}});
  // While it runs: a picture that may change.
  const std::string id = str(host.wait_for("state"), "gameId");
  ASSERT_EQ(id.size(), 12u);
  Reply running = request(port, http::verb::get, "/api/games/" + id + ".png");
  ASSERT_EQ(running.status, 200);
  EXPECT_EQ(running.header("cache-control"), "public, max-age=30");
  int v = 0;
  for (const char* m : {"a2a7", "g8f8", "b1b8"}) {
    (v % 2 ? guest : host).send({{"t", "move"}, {"v", v}, {"move", m}});
    ++v;
    host.wait_for("state", at_version(v));
  }

  Reply page = request(port, http::verb::get, "/g/" + id);
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.header("content-type"), "text/html; charset=utf-8");
  const std::string& html = page.text;
  EXPECT_NE(html.find("<meta property=\"og:title\" content=\"Som &lt;b&gt;&quot;chai&quot;&lt;/b&gt; – Dara · Makruk\" />"),
            std::string::npos) << html;
  EXPECT_EQ(html.find("<b>"), std::string::npos) << "a name is never markup";
  // Three half-moves from White's turn: two moves as players count them.
  EXPECT_NE(html.find("content=\"1–0 (checkmate) after 2 moves."), std::string::npos) << html;
  EXPECT_NE(html.find("<meta property=\"og:image\" content=\"https://makruk.example/api/games/" + id + ".png?size=card\" />"),
            std::string::npos) << html;
  EXPECT_NE(html.find("<meta property=\"og:url\" content=\"https://makruk.example/g/" + id + "\" />"), std::string::npos);
  EXPECT_NE(html.find("<meta name=\"twitter:card\" content=\"summary_large_image\" />"), std::string::npos);
  EXPECT_NE(html.find("<title>Som &lt;b&gt;&quot;chai&quot;&lt;/b&gt; – Dara · Makruk</title>"), std::string::npos) << html;
  EXPECT_EQ(html.find("Makruk · Makruk"), std::string::npos) << "the game's name once";
  EXPECT_EQ(html.find("content=\"Play Makruk\""), std::string::npos) << "the description is the game's";

  // PNG: signature, then IHDR's width and height (big-endian).
  auto size_of = [](const std::string& png) {
    if (png.size() < 24 || png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0) return std::pair{0, 0};
    auto be = [&](size_t at) {
      return int((uint8_t(png[at]) << 24) | (uint8_t(png[at + 1]) << 16) | (uint8_t(png[at + 2]) << 8) | uint8_t(png[at + 3]));
    };
    return std::pair{be(16), be(20)};
  };
  Reply square = request(port, http::verb::get, "/api/games/" + id + ".png");
  ASSERT_EQ(square.status, 200);
  EXPECT_EQ(square.header("content-type"), "image/png");
  EXPECT_EQ(square.header("cache-control"), "public, max-age=86400");
  EXPECT_EQ(size_of(square.text), std::pair(720, 720));
  EXPECT_NE(square.text, running.text) << "the picture follows the moves";
  Reply card = request(port, http::verb::get, "/api/games/" + id + ".png?size=card");
  ASSERT_EQ(card.status, 200);
  EXPECT_EQ(size_of(card.text), std::pair(1200, 630));
  // Asked again: the same picture (kept, not drawn again).
  EXPECT_EQ(request(port, http::verb::get, "/api/games/" + id + ".png?size=card").text, card.text);

  // A burst of pictures of every size at once: each is drawn or refused for now
  // (503, "try again"; or 429, more at once than one address may have drawn),
  // none waits for ever, and the server goes on.
  std::vector<std::thread> burst;
  std::atomic<int> drawn{0}, busy{0}, other{0};
  for (int i = 0; i < 24; ++i)
    burst.emplace_back([&, i] {
      RequestOptions o;
      o.headers.push_back({"Cache-Control", "no-cache"});
      const int status = request(port, http::verb::get, "/api/games/" + id + ".png" + (i % 2 ? "?size=card" : "?x=" + std::to_string(i)), "", o).status;
      (status == 200 ? drawn : status == 503 || status == 429 ? busy : other)++;
    });
  for (auto& t : burst) t.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(drawn.load(), 1);
  EXPECT_EQ(request(port, http::verb::get, "/healthz").status, 200);

  // Unknown games: 404, for the page and the pictures; a malformed id too.
  EXPECT_EQ(request(port, http::verb::get, "/g/000000000000").status, 404);
  EXPECT_EQ(request(port, http::verb::get, "/api/games/000000000000.png").status, 404);
  EXPECT_EQ(request(port, http::verb::get, "/api/games/%3Cx%3E.png").status, 404);
  EXPECT_EQ(request(port, http::verb::get, "/api/games/.png").status, 404);
  // The rest of the client's routes are untouched.
  EXPECT_EQ(request(port, http::verb::get, "/p/ABCDEF").text.find("og:title"), std::string::npos);
  std::filesystem::remove_all(root);
}

// The cache behind the web client's files, on its own.
TEST(StaticFilesCache, KeepsFilesUntilTheyChangeAndStaysWithinItsBudget) {
  using makruk::server::StaticFiles;
  const auto root = std::filesystem::temp_directory_path() / ("makruk-static-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(root / name, std::ios::binary) << text;
  };
  write("a.js", std::string(100, 'a'));
  write("b.js", std::string(100, 'b'));
  write("big.js", std::string(300, 'c'));
  StaticFiles files(/*max_file=*/200, /*max_total=*/150);
  auto a = files.get(root / "a.js");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->body, std::string(100, 'a'));
  EXPECT_EQ(files.get(root / "a.js"), a);  // the same bytes, not read again
  EXPECT_EQ(files.kept_files(), 1u);
  auto b = files.get(root / "b.js");  // over the total: served, not kept
  ASSERT_TRUE(b);
  EXPECT_EQ(b->body, std::string(100, 'b'));
  EXPECT_NE(b->etag, a->etag);
  EXPECT_EQ(files.kept_bytes(), 100u);
  auto big = files.get(root / "big.js");  // over the per-file limit: served, not kept
  ASSERT_TRUE(big);
  EXPECT_EQ(big->body.size(), 300u);
  EXPECT_EQ(files.kept_files(), 1u);
  write("a.js", std::string(120, 'A'));  // a new size: read again, the budget counts the new one
  auto a2 = files.get(root / "a.js");
  EXPECT_EQ(a2->body, std::string(120, 'A'));
  EXPECT_NE(a2->etag, a->etag);
  EXPECT_EQ(files.kept_bytes(), 120u);
  write("a.js", std::string(120, 'Z'));  // the same size, a later time: read again
  std::filesystem::last_write_time(root / "a.js", std::filesystem::last_write_time(root / "a.js") + 2s);
  EXPECT_EQ(files.get(root / "a.js")->body, std::string(120, 'Z'));
  EXPECT_EQ(files.get(root / "missing.js"), nullptr);
  EXPECT_EQ(files.get(root), nullptr);  // a folder is not a file
  std::filesystem::remove_all(root);
}

TEST(StaticFilesCache, IfNoneMatchIsReadAsAListOfEntityTags) {
  using makruk::server::StaticFiles;
  const std::string tag = "\"abc-1\"";
  EXPECT_TRUE(StaticFiles::none_match(tag, tag));
  EXPECT_TRUE(StaticFiles::none_match("W/" + tag, tag));
  EXPECT_TRUE(StaticFiles::none_match("*", tag));
  EXPECT_TRUE(StaticFiles::none_match("\"x\",\t " + tag, tag));
  EXPECT_TRUE(StaticFiles::none_match("\"a,b\", " + tag, tag));  // a comma inside a tag is part of it
  EXPECT_FALSE(StaticFiles::none_match("", tag));
  EXPECT_FALSE(StaticFiles::none_match("abc-1", tag));          // not quoted
  EXPECT_FALSE(StaticFiles::none_match("\"abc-1", tag));        // not closed
  EXPECT_FALSE(StaticFiles::none_match("\"abc-12\"", tag));
  EXPECT_FALSE(StaticFiles::none_match("\"abc\", -1\"", tag));  // pieces of two tags
  EXPECT_FALSE(StaticFiles::none_match("garbage, " + tag, tag));  // what follows garbage is not trusted
}

// A long game's record is made off the tables' thread: while it is being
// made (a 60,000-ply Ouk Chatrang game, written straight into the database,
// asked for with nothing made yet), moves at another table go on being
// acknowledged.
TEST_F(ServerTest, ALongGamesRecordHoldsUpNoOtherTable) {
  constexpr int PLIES = 60000;
  const std::string long_id = "longgame2345";
  {
    auto store = makruk::server::open_sqlite_store((data_ / "makruk.db").string());
    makruk::server::TableRecord p;
    p.code = "WXYZ23";
    p.variant = "ouk";
    p.counting = "auto";
    p.created_at = 1767225600000;
    p.invite_key = "k";
    store->create_table(p, {p.code, 0, "Somchai", std::string(64, '0')});
    store->add_seat({p.code, 1, "Dara", std::string(64, '1')});
    const int64_t game = store->create_game(p.code, 1, 0, "", p.created_at, false, long_id);
    const char* shuffle[] = {"b1d2", "b8d7", "d2b1", "d7b8"};  // knights out and back, forever legal in Ouk
    for (int v = 0; v < PLIES; ++v) store->append_action(game, v, shuffle[v % 4], p.created_at + v, false);
  }
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}, {"variant", "ouk"}});
  WsClient host(port()), guest(port());
  both_hello(host, guest, code, hostToken, guestToken);
  host.send({{"t", "start"}, {"id", "start"}});
  host.wait_for("ack");
  guest.wait_for("state");
  // The other table's moves, one after another, each waiting for its ack.
  std::atomic<bool> stop{false};
  std::atomic<int> acked{0};
  std::thread mover([&] {
    const char* shuffle[] = {"b1d2", "b8d7", "d2b1", "d7b8"};
    for (int v = 0; !stop && v < 100000; ++v) {
      WsClient& side = v % 2 ? guest : host;
      const std::string id = "m" + std::to_string(v);
      side.send({{"t", "move"}, {"v", v}, {"move", shuffle[v % 4]}, {"id", id}});
      // (generous: under a sanitizer on a loaded machine an ack can take seconds; whether
      // the other table was held is what `during` below measures)
      if (side.wait_for("ack", [&](const json::value& m) { return field(m, "id") == id; }, 60s).is_null()) return;
      ++acked;
    }
  });
  while (acked < 3) std::this_thread::sleep_for(1ms);
  // HEAD: the record is made in full, and only its headers come back, so
  // that the time counted is the server's.
  const int before = acked;
  Reply head = request(port(), http::verb::head, "/api/games/" + long_id);
  const int during = acked - before;
  Reply record = request(port(), http::verb::get, "/api/games/" + long_id);
  Reply again = request(port(), http::verb::get, "/api/games/" + long_id + ".pgn");
  stop = true;
  mover.join();
  EXPECT_EQ(head.status, 200);
  ASSERT_EQ(record.status, 200);
  EXPECT_EQ(record.body.at("game").at("moves").as_array().size(), size_t(PLIES));
  EXPECT_EQ(str(record.body.at("game"), "result"), "*");
  EXPECT_EQ(again.status, 200);
  EXPECT_NE(again.text.find("[Variant \"cambodian\"]"), std::string::npos);
  // Were the record made on the tables' thread, at most the move in flight
  // and the one after it would have been acknowledged meanwhile.
  EXPECT_GE(during, 4) << "moves at another table were held while the long record was made";
}

namespace {

// Runs `makruk ARGS` (each argument quoted for the shell), at most 20 s: its exit status
// and what it wrote (both streams).
std::pair<int, std::string> makruk_cli(const std::vector<std::string>& args) {
  std::string command = "timeout 20 '" + makruk_binary() + "'";
  for (const std::string& a : args) command += " '" + a + "'";
  return shell(command);
}

// Two players at a table started at `port`, playing legal moves in turn, each acknowledged.
struct TwoPlaying {
  WsClient host, guest;
  json::value s;
  std::vector<std::string> played;  // acknowledged, in order
  TwoPlaying(uint16_t port, const std::string& code, const std::string& hostToken, const std::string& guestToken)
      : host(port), guest(port) {
    host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
    guest.send({{"t", "hello"}, {"code", code}, {"token", guestToken}});
    host.send({{"t", "start"}});
    s = guest.wait_for("state");
  }
  void play(int plies) {
    for (int i = 0; i < plies; ++i) {
      const auto& legal = s.at("legal").as_array();
      if (legal.empty() || str(s, "result") != "*") return;
      const int64_t v = s.at("v").as_int64();
      // Not the first legal move each time: a knight shuffle would repeat the position.
      const std::string move(legal[(v * 7) % legal.size()].as_string());
      WsClient& mover = v % 2 == 0 ? host : guest;
      mover.send({{"t", "move"}, {"v", v}, {"move", move}, {"id", "m" + std::to_string(v)}});
      mover.wait_for("ack", [&](const json::value& m) { return m.as_object().contains("id") && m.at("v").as_int64() == v + 1; });
      played.push_back(move);
      s = (v % 2 == 0 ? guest : host).wait_for("state", at_version(v + 1));
    }
  }
};

// The moves of the table `code` at a server, as its host sees them on arriving.
std::vector<std::string> moves_at(uint16_t port, const std::string& code, const std::string& hostToken) {
  WsClient h(port);
  h.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  EXPECT_EQ(h.wait_for("welcome").at("seat").as_int64(), 0);
  std::vector<std::string> out;
  const json::value s = h.wait_for("state");
  for (const auto& m : s.at("moves").as_array()) {
    EXPECT_TRUE(m.is_string()) << json::serialize(s);
    if (m.is_string()) out.emplace_back(m.as_string());
  }
  return out;
}

}  // namespace

// A backup taken while two players move (SQLite's online backup) holds every move acknowledged
// before it began; restored into a fresh folder, a server there has the table with those moves.
// A restore under a running server, a second server on the folder, a backup over an existing
// file and a restore of a file that is no database are refused, changing nothing.
TEST_F(ServerTest, ABackupTakenDuringPlayRestoresEveryAcknowledgedMove) {
  auto [code, hostToken, guestToken] = two_players({{"name", "Somchai"}});
  TwoPlaying table(port(), code, hostToken, guestToken);
  auto& played = table.played;
  auto play = [&](int plies) { table.play(plies); };
  play(10);
  ASSERT_EQ(played.size(), 10u);
  const size_t before = played.size();
  const std::string file = (data_.parent_path() / (data_.filename().string() + ".backup")).string();
  std::filesystem::remove(file);
  std::pair<int, std::string> backup;
  std::thread taker([&] { backup = makruk_cli({"backup", "--data", data_.string(), file}); });
  play(20);
  taker.join();
  ASSERT_EQ(backup.first, 0) << backup.second;
  EXPECT_NE(backup.second.find("1 tables"), std::string::npos) << backup.second;
  // Refused: a backup over a file, a restore or a second server under the running one.
  auto again = makruk_cli({"backup", "--data", data_.string(), file});
  EXPECT_EQ(again.first, 2);
  EXPECT_NE(again.second.find("never overwrites"), std::string::npos) << again.second;
  auto under = makruk_cli({"restore", "--data", data_.string(), file});
  EXPECT_EQ(under.first, 2);
  EXPECT_NE(under.second.find("a server is running"), std::string::npos) << under.second;
  auto second = makruk_cli({"serve", "--address", "127.0.0.1", "--port", "0", "--data", data_.string()});
  EXPECT_EQ(second.first, 1);
  EXPECT_NE(second.second.find("another server is running"), std::string::npos) << second.second;
  const std::string junk = file + ".junk";
  { std::ofstream(junk) << "not a database, only words"; }
  auto bad = makruk_cli({"restore", "--data", (data_.string() + "-restored"), junk});
  EXPECT_EQ(bad.first, 2);
  EXPECT_FALSE(std::filesystem::exists(data_.string() + "-restored/makruk.db"));

  // Restored into a fresh folder: every move acknowledged before the backup began is there.
  const std::string fresh = data_.string() + "-restored";
  auto restored = makruk_cli({"restore", "--data", fresh, file});
  ASSERT_EQ(restored.first, 0) << restored.second;
  std::vector<std::string> kept;
  {
    Server other(fresh);
    kept = moves_at(other.port(), code, hostToken);
  }
  ASSERT_GE(kept.size(), before);
  ASSERT_LE(kept.size(), played.size());
  EXPECT_TRUE(std::equal(kept.begin(), kept.end(), played.begin())) << "the backup's moves are the ones played";
  // Restored over the folder the server used (stopped): the database replaced is kept beside it.
  server_->kill_hard();
  auto over = makruk_cli({"restore", "--data", data_.string(), file});
  ASSERT_EQ(over.first, 0) << over.second;
  int replaced = 0;
  for (const auto& e : std::filesystem::directory_iterator(data_))
    replaced += e.path().filename().string().starts_with("makruk.db.replaced-");
  EXPECT_EQ(replaced, 1);
  server_->start();
  EXPECT_EQ(moves_at(port(), code, hostToken), kept);
  std::filesystem::remove_all(fresh);
  std::filesystem::remove(file);
  std::filesystem::remove(junk);
}

// PostgreSQL's own tools (docs/deploy.md): a dump taken with pg_dump while two players move,
// restored with pg_restore into an empty database, holds every move acknowledged before it began.
TEST(PostgresServer, ADumpTakenDuringPlayRestoresEveryAcknowledgedMove) {
  if (makruk::testing_helpers::TempPg::server().empty()) GTEST_SKIP() << "no PostgreSQL (MAKRUK_TEST_POSTGRES)";
  makruk::testing_helpers::TempPg db, restored;
  const auto data = std::filesystem::temp_directory_path() / ("makruk-it-pgdump-" + std::to_string(getpid()));
  std::filesystem::remove_all(data);
  std::filesystem::create_directories(data);
  std::vector<std::string> kept;
  std::string code, hostToken;
  size_t before = 0, played = 0;
  {
    Server server(data / "a", {"--store", db.url()});
    Reply c = request(server.port(), http::verb::post, "/api/parties", R"({"name":"Somchai"})");
    ASSERT_EQ(c.status, 201);
    code = str(c.body, "code");
    hostToken = str(c.body, "token");
    Reply j = request(server.port(), http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
    ASSERT_EQ(j.status, 200);
    TwoPlaying table(server.port(), code, hostToken, str(j.body, "token"));
    table.play(10);
    before = table.played.size();
    ASSERT_EQ(before, 10u);
    const std::string dump = (data / "tables.dump").string();
    std::pair<int, std::string> taken;
    std::thread taker(
        [&] { taken = shell("timeout 60 pg_dump --format=custom --file='" + dump + "' '" + db.url() + "'"); });
    table.play(20);
    taker.join();
    ASSERT_EQ(taken.first, 0) << taken.second;
    played = table.played.size();
    const auto restoredDump =
        shell("timeout 60 pg_restore --no-owner --exit-on-error --dbname='" + restored.url() + "' '" + dump + "'");
    ASSERT_EQ(restoredDump.first, 0) << restoredDump.second;
    Server other(data / "b", {"--store", restored.url()});
    kept = moves_at(other.port(), code, hostToken);
    ASSERT_GE(kept.size(), before);
    ASSERT_LE(kept.size(), played);
    EXPECT_TRUE(std::equal(kept.begin(), kept.end(), table.played.begin()));
  }
  std::filesystem::remove_all(data);
}

// Tables shared among two hub threads by code. A table's hub held for seconds (as a long piece
// of work would hold it) holds up none of the other hub's tables: their moves are acknowledged
// while a move at the held table waits, and that move is acknowledged once the hub is free. Each
// client sees its table's versions in order, whichever hub its connection reached; two
// connections of one seat at different hubs sending a move at the same version get one
// acknowledgement and one refusal, and every client ends at the same state.
TEST(HubThreads, ATableHeldAtItsHubHoldsUpNoOtherHubsTableAndEveryClientSeesItsVersionsInOrder) {
  const auto data = std::filesystem::temp_directory_path() / ("makruk-it-hubs-" + std::to_string(getpid()));
  std::filesystem::remove_all(data);
  Server server(data, {"--hub-threads", "2", "--test-clock"});
  const uint16_t port = server.port();
  struct At {
    std::string code, host, guest;
  };
  std::array<std::optional<At>, 2> at;  // a table at each hub
  for (int i = 0; i < 40 && (!at[0] || !at[1]); ++i) {
    Reply c = request(port, http::verb::post, "/api/parties", R"({"name":"Somchai"})");
    ASSERT_EQ(c.status, 201) << c.text;
    const std::string code = str(c.body, "code");
    Reply j = request(port, http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
    ASSERT_EQ(j.status, 200) << j.text;
    auto& slot = at[makruk::server::shard_of(code, 2)];
    if (!slot) slot = At{code, str(c.body, "token"), str(j.body, "token")};
  }
  ASSERT_TRUE(at[0] && at[1]) << "new tables fall to both hubs";

  // Players come to their table's hub (/ws?code=, as the web client does); spectators without
  // it reach the same hub by their first message, a hello naming the table.
  struct Clients {
    std::unique_ptr<WsClient> host, guest, seen[2];
    json::value s;
  };
  std::array<Clients, 2> t;
  for (int k = 0; k < 2; ++k) {
    WsOptions hinted;
    hinted.path = "/ws?code=" + at[k]->code;
    t[k].host = std::make_unique<WsClient>(port, hinted);
    t[k].guest = std::make_unique<WsClient>(port, hinted);
    t[k].host->send({{"t", "hello"}, {"code", at[k]->code}, {"token", at[k]->host}, {"events", true}});
    t[k].guest->send({{"t", "hello"}, {"code", at[k]->code}, {"token", at[k]->guest}, {"events", true}});
    for (auto& seen : t[k].seen) {
      seen = std::make_unique<WsClient>(port);
      seen->send({{"t", "hello"}, {"code", at[k]->code}, {"events", true}});
      ASSERT_TRUE(seen->wait_for("welcome").at("seat").is_null());
    }
    t[k].host->wait_for("party", [](auto& m) { return str(m, "status") == "ready"; });
    t[k].host->send({{"t", "start"}});
    t[k].s = t[k].guest->wait_for("state");
    ASSERT_EQ(t[k].s.at("v").as_int64(), 0);
  }
  // One move at a table; returns its version after.
  auto send_move = [&](int k, const std::string& id) {
    const json::value& s = t[k].s;
    const int64_t v = s.at("v").as_int64();
    const auto& legal = s.at("legal").as_array();
    const std::string move(legal[size_t(v * 7) % legal.size()].as_string());
    (v % 2 == 0 ? *t[k].host : *t[k].guest).send({{"t", "move"}, {"v", v}, {"move", move}, {"id", id}});
    return v + 1;
  };
  auto acked = [](WsClient& c, const std::string& id, std::chrono::milliseconds wait) {
    return !c.wait_for("ack", [&](const json::value& m) { return field(m, "id") == id; }, wait).is_null();
  };
  auto mover = [&](int k) -> WsClient& { return t[k].s.at("v").as_int64() % 2 == 0 ? *t[k].host : *t[k].guest; };
  auto other = [&](int k) -> WsClient& { return t[k].s.at("v").as_int64() % 2 == 0 ? *t[k].guest : *t[k].host; };

  // Hold table 0's hub for 5 s; its next move waits behind that, table 1's do not.
  Reply stall = request(port, http::verb::post, "/api/test/stall/" + at[0]->code, R"({"ms":5000})");
  ASSERT_EQ(stall.status, 200) << stall.text;
  WsClient& held = mover(0);
  send_move(0, "held");
  for (int i = 0; i < 6; ++i) {
    WsClient& m = mover(1);
    const int64_t v = send_move(1, "free" + std::to_string(i));
    ASSERT_TRUE(acked(m, "free" + std::to_string(i), 4000ms)) << "a move at the other hub's table waited";
    t[1].s = other(1).wait_for("moved", [v](auto& e) { return e.at("v").as_int64() == v; }, 4000ms);
    ASSERT_FALSE(t[1].s.is_null());
  }
  // Table 1 played on while the move at table 0 waited: it is not acknowledged yet.
  for (const json::value& m : held.drain(100ms, 500ms))
    EXPECT_FALSE(field(m, "t") == "ack" && field(m, "id") == "held") << "the held hub answered during its stall";
  EXPECT_TRUE(acked(held, "held", 15000ms)) << "the held table's move is acknowledged once its hub is free";

  // Two connections of table 1's mover, one at each hub, send a move at the same version:
  // one is acknowledged, the other refused.
  const int64_t v = t[1].s.at("v").as_int64();
  WsOptions elsewhere;  // the hub that does not hold table 1
  elsewhere.path = "/ws?code=" + at[0]->code;
  WsClient twin(port, elsewhere);
  twin.send({{"t", "hello"}, {"code", at[1]->code}, {"token", v % 2 == 0 ? at[1]->host : at[1]->guest}, {"events", true}});
  ASSERT_FALSE(twin.wait_for("state", at_version(v)).is_null());
  const auto& legal = t[1].s.at("legal").as_array();
  mover(1).send({{"t", "move"}, {"v", v}, {"move", legal[0]}, {"id", "a"}});
  twin.send({{"t", "move"}, {"v", v}, {"move", legal[legal.size() - 1]}, {"id", "b"}});
  int acks = 0, refusals = 0;
  std::map<WsClient*, bool> reached;  // a client has the table at v + 1
  auto note = [&](WsClient* c, const json::value& m) {
    if ((field(m, "t") == "state" || field(m, "t") == "moved") && m.at("v").as_int64() == v + 1) reached[c] = true;
  };
  for (auto [c, id] : {std::pair<WsClient*, std::string>{&mover(1), "a"}, {&twin, "b"}}) {
    for (json::value m = c->next(10s); !m.is_null(); m = c->next(10s)) {
      note(c, m);
      if (field(m, "id") != id) continue;
      acks += field(m, "t") == "ack";
      refusals += field(m, "t") == "error";
      if (field(m, "t") == "error") c->send({{"t", "sync"}});  // the refused one catches up
      break;
    }
  }
  EXPECT_EQ(acks, 1);
  EXPECT_EQ(refusals, 1);

  // Every client of table 1 ends at version v + 1, and each spectator saw the versions in
  // order: each event follows the version before it, whichever hub the spectator reached.
  for (WsClient* c : {t[1].host.get(), t[1].guest.get(), &twin}) {
    for (json::value m = reached[c] ? nullptr : c->next(5s); !m.is_null(); m = reached[c] ? nullptr : c->next(5s))
      note(c, m);
    EXPECT_TRUE(reached[c]);
  }
  for (int k = 0; k < 2; ++k)
    for (auto& seen : t[k].seen) {
      int64_t version = -1;
      for (const json::value& m : seen->drain(300ms)) {
        if (field(m, "t") == "state") {
          EXPECT_GE(m.at("v").as_int64(), version);
          version = m.at("v").as_int64();
        } else if (field(m, "t") == "moved") {
          EXPECT_EQ(m.at("from").as_int64(), version) << "an event out of order";
          version = m.at("v").as_int64();
        }
      }
      EXPECT_EQ(version, k == 1 ? v + 1 : 1);
    }
  std::filesystem::remove_all(data);
}

// The lobby runs on a thread of its own, never a table's: with every hub
// held (as a long piece of work would hold it), a seeker is still told at
// once that it waits; the pairing's table, which a hub makes, comes once the
// hubs are free. The pairings' tables go to the hubs in turn.
// Turn notifications run on a thread of their own: My games asks each table
// of the hub that holds it (no hub reads another's table into its memory),
// and what needs no table (the push key, unsubscribing, a malformed request)
// is answered while every hub is held.
TEST(HubThreads, MyGamesAsksEachTablesHubAndPushAnswersWhileEveryHubIsHeld) {
  const auto data = std::filesystem::temp_directory_path() / ("makruk-it-notices-" + std::to_string(getpid()));
  std::filesystem::remove_all(data);
  Server server(data, {"--hub-threads", "2", "--test-clock"});
  const uint16_t port = server.port();
  std::array<std::string, 2> code, guest;  // a turn-based table at each hub, Dara its guest
  std::string host_token;
  for (int i = 0; i < 40 && (code[0].empty() || code[1].empty()); ++i) {
    Reply c = request(port, http::verb::post, "/api/parties", R"({"name":"Somchai","mode":"turn"})");
    ASSERT_EQ(c.status, 201) << c.text;
    const size_t shard = makruk::server::shard_of(str(c.body, "code"), 2);
    if (!code[shard].empty()) continue;
    code[shard] = str(c.body, "code");
    if (shard == 0) host_token = str(c.body, "token");
    Reply j = request(port, http::verb::post, "/api/parties/" + code[shard] + "/join", R"({"name":"Dara"})");
    ASSERT_EQ(j.status, 200) << j.text;
    guest[shard] = str(j.body, "token");
  }
  ASSERT_FALSE(code[0].empty() || code[1].empty());
  // The first table's game starts: Dara's turn there after the host's move.
  WsClient host(port);
  host.send({{"t", "hello"}, {"code", code[0]}, {"token", host_token}});
  host.send({{"t", "start"}});
  ASSERT_FALSE(host.wait_for("state").is_null());
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "first"}});
  ASSERT_FALSE(host.wait_for("ack", [](auto& m) { return field(m, "id") == "first"; }).is_null());
  auto in_memory = [&] { return metric(request(port, http::verb::get, "/metrics").text, "tables_in_memory"); };
  const std::string before = in_memory();
  const std::string mine = json::serialize(json::object{
      {"tables", json::array{json::object{{"code", code[1]}, {"token", guest[1]}},
                             json::object{{"code", code[0]}, {"token", guest[0]}},
                             json::object{{"code", code[0]}, {"token", "not-a-seat"}}}}});
  for (int i = 0; i < 4; ++i) {  // whichever hub the network would have chosen
    Reply games = request(port, http::verb::post, "/api/my-games", mine);
    ASSERT_EQ(games.status, 200) << games.text;
    const json::array& list = games.body.at("games").as_array();
    ASSERT_EQ(list.size(), 2u) << games.text;
    EXPECT_EQ(str(list[0], "code"), code[0]) << "Dara's turn there: first";
    EXPECT_TRUE(list[0].at("yourTurn").as_bool());
    EXPECT_EQ(str(list[1], "code"), code[1]);
    EXPECT_EQ(list[1].at("seat").as_int64(), 1);
    EXPECT_EQ(games.body.at("unknown").as_array(), (json::array{json::value(code[0])}));
  }
  EXPECT_EQ(in_memory(), before) << "a hub read another hub's table";

  // Both hubs held for 5 s: a move waits behind its hub, the push key and an
  // unsubscription do not.
  for (const std::string& at : code) {
    Reply stall = request(port, http::verb::post, "/api/test/stall/" + at, R"({"ms":5000})");
    ASSERT_EQ(stall.status, 200) << stall.text;
  }
  host.send({{"t", "move"}, {"v", 1}, {"move", "e6e5"}, {"id", "held"}});  // not the host's turn: refused, later
  Reply key = request(port, http::verb::get, "/api/push/key");
  EXPECT_EQ(key.status, 200) << key.text;
  EXPECT_FALSE(str(key.body, "publicKey").empty());
  Reply gone = request(port, http::verb::post, "/api/push/unsubscribe", R"({"endpoint":"https://push.example.net/x"})");
  EXPECT_EQ(gone.status, 200) << gone.text;
  Reply bad = request(port, http::verb::post, "/api/push/subscribe", "{");
  EXPECT_EQ(bad.status, 400) << bad.text;
  for (const json::value& m : host.drain(50ms, 100ms))
    ASSERT_FALSE(field(m, "t") == "error") << "the hub was free before turn notifications answered: nothing shown";
  EXPECT_FALSE(host.wait_for("error", [](auto& m) { return field(m, "id") == "held"; }, 15s).is_null());
  std::filesystem::remove_all(data);
}

TEST(HubThreads, TheLobbyAnswersWhileEveryHubIsHeldAndItsTablesGoToTheHubsInTurn) {
  const auto data = std::filesystem::temp_directory_path() / ("makruk-it-lobby-" + std::to_string(getpid()));
  std::filesystem::remove_all(data);
  Server server(data, {"--hub-threads", "2", "--test-clock", "--pair-same-address"});
  const uint16_t port = server.port();
  // A game at the first hub, whose next move shows when that hub is free again.
  std::string code, host_token;
  for (int i = 0; i < 40 && code.empty(); ++i) {
    Reply c = request(port, http::verb::post, "/api/parties", R"({"name":"Somchai"})");
    ASSERT_EQ(c.status, 201) << c.text;
    if (makruk::server::shard_of(str(c.body, "code"), 2) == 0) code = str(c.body, "code"), host_token = str(c.body, "token");
  }
  ASSERT_FALSE(code.empty());
  Reply j = request(port, http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
  ASSERT_EQ(j.status, 200) << j.text;
  WsClient host(port), guest(port);
  host.send({{"t", "hello"}, {"code", code}, {"token", host_token}});
  guest.send({{"t", "hello"}, {"code", code}, {"token", str(j.body, "token")}});
  host.wait_for("party", [](auto& m) { return str(m, "status") == "ready"; });
  host.send({{"t", "start"}});
  ASSERT_FALSE(host.wait_for("state").is_null());

  // Both hubs held for 5 s; a move at the table waits behind its hub.
  std::string second = "AAAAAA";  // any code of the second hub's
  while (makruk::server::shard_of(second, 2) != 1) ++second.back();
  for (const std::string& at : {code, second}) {
    Reply stall = request(port, http::verb::post, "/api/test/stall/" + at, R"({"ms":5000})");
    ASSERT_EQ(stall.status, 200) << stall.text;
  }
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "held"}});
  auto seek = [](const std::string& browser) {
    return json::object{{"t", "seek"}, {"name", "Noi"}, {"browser", browser}, {"variant", "makruk"}, {"mode", "live"}};
  };
  WsClient a(port), b(port);
  a.send(seek("browser-a"));
  ASSERT_FALSE(a.wait_for("seeking", {}, 4000ms).is_null()) << "the lobby waited for a hub";
  for (const json::value& m : host.drain(50ms, 100ms))
    ASSERT_FALSE(field(m, "t") == "ack") << "the hub was free before the seeker was answered: nothing shown";
  b.send(seek("browser-b"));
  const json::value pa = a.wait_for("paired", {}, 15s), pb = b.wait_for("paired", {}, 15s);
  ASSERT_FALSE(pa.is_null());
  ASSERT_FALSE(pb.is_null());
  EXPECT_EQ(str(pa, "code"), str(pb, "code"));
  EXPECT_FALSE(host.wait_for("ack", [](auto& m) { return field(m, "id") == "held"; }, 15s).is_null());
  // The next pairing's table is at the other hub.
  WsClient c(port), d(port);
  c.send(seek("browser-c"));
  c.wait_for("seeking");
  d.send(seek("browser-d"));
  const json::value pc = c.wait_for("paired");
  ASSERT_FALSE(pc.is_null());
  EXPECT_NE(makruk::server::shard_of(str(pa, "code"), 2), makruk::server::shard_of(str(pc, "code"), 2));
  // Both tables are ordinary ones: a paired player is welcomed at either.
  for (const json::value* p : {&pa, &pc}) {
    WsClient seat(port);
    seat.send({{"t", "hello"}, {"code", str(*p, "code")}, {"token", str(*p, "token")}});
    EXPECT_EQ(seat.wait_for("welcome").at("seat").as_int64(), 0);
  }
  Reply lobby = request(port, http::verb::get, "/api/lobby");
  EXPECT_EQ(lobby.status, 200);
  EXPECT_EQ(lobby.body.at("waiting").as_int64(), 0);
  std::filesystem::remove_all(data);
}
