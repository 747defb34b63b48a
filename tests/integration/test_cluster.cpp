// Several `makruk serve` instances behind nginx, on one PostgreSQL database
// with a Redis bus between them: real processes, each started here on
// loopback (PostgreSQL and Redis of their own, so that restarting them
// disturbs no other test). Players at different instances play a game; an
// instance is killed mid-game and mid-search; Redis and PostgreSQL restart.
#include <gtest/gtest.h>

#include <map>
#include <signal.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "push_receiver.h"
#include "server/push/webpush.h"
#include "server_process.h"

using namespace std::chrono_literals;
using namespace makruk::testing;

namespace {

// Runs a shell command; its first line of output.
std::string run(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  if (auto eol = out.find('\n'); eol != std::string::npos) out.resize(eol);
  return out;
}


bool answers(uint16_t port) {
  return request(port, http::verb::get, "/healthz").status == 200;
}

const std::string SERVICES = std::string(MAKRUK_SOURCE_DIR) + "/tests/services";
constexpr int PER_CLIENT = 8;  // nginx's cap on one address's connections, here

// nginx in front of the instances, with the configuration the project ships
// (deploy/nginx.conf): HTTPS with HSTS, plain HTTP sent there (but for the
// certificate's challenge), HTTP and WebSocket, round robin, the next instance
// when one does not answer, and the cap on connections per client address (set
// to `per_client` here). Changed for the test: loopback ports for its
// listeners, a throwaway certificate for 127.0.0.1, a folder of the test's own
// for the challenge's files, our instances, the cap; and the HTTPS server also
// listens on a plain loopback port (port()), which the other tests speak to.
class Nginx {
 public:
  Nginx(const std::filesystem::path& dir, const std::vector<uint16_t>& ports, int per_client) : dir_(dir) {
    std::filesystem::create_directories(dir_ / "acme" / ".well-known" / "acme-challenge");
    std::ofstream(dir_ / "acme" / ".well-known" / "acme-challenge" / "token") << "challenge answered";
    const std::string d = dir_.string();
    const std::string mk = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj "
                           "/CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout '" + d + "/key.pem' -out '" + d +
                           "/cert.pem' >/dev/null 2>&1";
    EXPECT_EQ(std::system(mk.c_str()), 0) << "a throwaway certificate";
    // The listeners' ports are picked free and let go before nginx binds
    // them, so another process may take one in between: nginx then exits at
    // once, and is started again on other ports.
    for (int attempt = 0; attempt < 3 && !up_; ++attempt) {
      port_ = free_port(), tls_port_ = free_port(), redirect_port_ = free_port();
      configure(ports, per_client);
      pid_ = fork();
      if (pid_ == 0) {
        execl("/usr/sbin/nginx", "nginx", "-p", d.c_str(), "-c", (d + "/nginx.conf").c_str(), nullptr);
        _exit(127);
      }
      for (auto deadline = Clock::now() + 20s; Clock::now() < deadline; std::this_thread::sleep_for(50ms)) {
        if ((up_ = answers(port_))) break;
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) {  // it stopped: see its error log
          pid_ = -1;
          break;
        }
      }
      if (!up_ && pid_ > 0) {  // running, yet silent: stopped before the next try
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
      }
    }
    if (!up_) {
      std::ifstream log(dir_ / "error.log");
      std::stringstream text;
      text << log.rdbuf();
      ADD_FAILURE() << "nginx did not answer; its error log:\n" << text.str();
    }
  }
  ~Nginx() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);  // the master stops its workers, then itself
      waitpid(pid_, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
  }
  uint16_t port() const { return port_; }
  uint16_t tls_port() const { return tls_port_; }
  uint16_t redirect_port() const { return redirect_port_; }
  std::string certificate() const { return (dir_ / "cert.pem").string(); }

 private:
  // Writes nginx.conf: the shipped site, changed as said above.
  void configure(const std::vector<uint16_t>& ports, int per_client) {
    const std::string d = dir_.string();
    std::ifstream in(std::string(MAKRUK_SOURCE_DIR) + "/deploy/nginx.conf");
    std::stringstream shipped;
    shipped << in.rdbuf();
    std::string site;
    bool upstreams_written = false;
    int tls = 0, certs = 0;
    for (std::string line; std::getline(shipped, line);) {
      const std::string trimmed = line.substr(std::min(line.find_first_not_of(' '), line.size()));
      if (trimmed.rfind("server 127.0.0.1:", 0) == 0) {  // the shipped instances: ours instead
        if (!upstreams_written)
          for (uint16_t p : ports) site += "    server 127.0.0.1:" + std::to_string(p) + " max_fails=1 fail_timeout=3s;\n";
        upstreams_written = true;
        continue;
      }
      if (trimmed.rfind("listen [::]:", 0) == 0) continue;  // loopback only
      if (trimmed == "listen 80;") line = "    listen 127.0.0.1:" + std::to_string(redirect_port_) + ";";
      if (trimmed == "listen 443 ssl http2;") {
        line = "    listen 127.0.0.1:" + std::to_string(tls_port_) + " ssl http2;\n    listen 127.0.0.1:" +
               std::to_string(port_) + ";";
        ++tls;
      }
      if (trimmed.rfind("ssl_certificate ", 0) == 0) line = "    ssl_certificate " + d + "/cert.pem;", ++certs;
      if (trimmed.rfind("ssl_certificate_key ", 0) == 0) line = "    ssl_certificate_key " + d + "/key.pem;", ++certs;
      if (trimmed == "root /var/www/letsencrypt;") line = "        root " + d + "/acme;";
      if (trimmed.rfind("limit_conn makruk_per_client ", 0) == 0)
        line = "        limit_conn makruk_per_client " + std::to_string(per_client) + ";";
      site += line + "\n";
    }
    EXPECT_TRUE(upstreams_written) << "deploy/nginx.conf names its instances as server 127.0.0.1:PORT";
    EXPECT_EQ(tls, 1) << "deploy/nginx.conf has one HTTPS server (listen 443 ssl http2;)";
    EXPECT_EQ(certs, 2) << "deploy/nginx.conf names its certificate and key";
    std::ofstream conf(dir_ / "nginx.conf");
    conf << (geteuid() == 0 ? "user root;\n" : "") << "daemon off;\nworker_processes 1;\npid " << d
         << "/nginx.pid;\nerror_log " << d << "/error.log;\nevents { worker_connections 1024; }\nhttp {\n"
         << "  access_log off;\n  client_body_temp_path " << d << "/body;\n  proxy_temp_path " << d << "/proxy;\n"
         << "  fastcgi_temp_path " << d << "/fastcgi;\n  uwsgi_temp_path " << d << "/uwsgi;\n  scgi_temp_path " << d
         << "/scgi;\n"
         << site << "}\n";
  }

  std::filesystem::path dir_;
  uint16_t port_ = 0, tls_port_ = 0, redirect_port_ = 0;
  pid_t pid_ = -1;
  bool up_ = false;
};

class Cluster : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/usr/sbin/nginx") || run("command -v redis-server").empty() ||
        run("ls -d /usr/lib/postgresql/*/bin 2>/dev/null").empty())
      GTEST_SKIP() << "nginx, redis-server or PostgreSQL is not installed";
    dir_ = std::filesystem::temp_directory_path() / ("makruk-cluster-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::filesystem::permissions(dir_, std::filesystem::perms::all);  // PostgreSQL's user goes in
    pg_port_ = free_port();
    redis_port_ = free_port();
    pg_ = run(SERVICES + "/postgres.sh start " + (dir_ / "pg").string() + " " + std::to_string(pg_port_));
    redis_ = run(SERVICES + "/redis.sh start " + (dir_ / "redis").string() + " " + std::to_string(redis_port_));
    ASSERT_FALSE(pg_.empty());
    ASSERT_FALSE(redis_.empty());
    for (int i = 0; i < 3; ++i) {
      servers_.push_back(std::make_unique<Server>(
          dir_ / ("instance" + std::to_string(i)),
          std::vector<std::string>{"--store", pg_ + "/postgres", "--bus", redis_, "--trusted-proxy", "127.0.0.1",
                                   "--cpu-max-ms", "2000", "--no-cpu-pause", "--test-clock", "--push-allow-http"}));
      ASSERT_TRUE(servers_.back()->started());
    }
    nginx_ = std::make_unique<Nginx>(dir_ / "nginx", std::vector<uint16_t>{port(0), port(1), port(2)}, PER_CLIENT);
    ASSERT_TRUE(answers(nginx_->port())) << "nginx answers";
  }
  void TearDown() override {
    nginx_.reset();
    servers_.clear();
    if (!dir_.empty()) {
      run(SERVICES + "/redis.sh stop " + (dir_ / "redis").string());
      run(SERVICES + "/postgres.sh stop " + (dir_ / "pg").string());
      std::filesystem::remove_all(dir_);
    }
  }
  uint16_t port(int i) const { return servers_[size_t(i)]->port(); }
  // Redis stopped (SIGSTOP) until the guard goes: the bus hangs, as when its
  // server stalls.
  struct Stalled {
    pid_t pid = 0;
    bool stopped = false;
    void resume() {
      if (stopped) kill(pid, SIGCONT);
      stopped = false;
    }
    ~Stalled() { resume(); }
  };
  std::unique_ptr<Stalled> stall_redis() {
    auto s = std::make_unique<Stalled>();
    std::ifstream(dir_ / "redis" / "redis.pid") >> s->pid;
    s->stopped = s->pid > 0 && kill(s->pid, SIGSTOP) == 0;
    return s;
  }
  uint16_t front() const { return nginx_->port(); }

  // A table made through nginx, with both seats taken.
  std::tuple<std::string, std::string, std::string> table(const std::string& create = R"({"name":"Somchai"})") {
    Reply c = request(front(), http::verb::post, "/api/parties", create);
    EXPECT_EQ(c.status, 201) << json::serialize(c.body);
    std::string code = str(c.body, "code"), host = str(c.body, "token"), guest;
    if (c.body.at("party").at("cpu").is_null()) {
      Reply j = request(front(), http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
      EXPECT_EQ(j.status, 200) << json::serialize(j.body);
      guest = str(j.body, "token");
    }
    return {code, host, guest};
  }
  // A game started through nginx, its host at instance `a`, its guest at `b`.
  struct Started {
    std::string code, host_token, guest_token;
    std::unique_ptr<WsClient> host, guest;
  };
  Started started(int a, int b) {
    auto [code, host_token, guest_token] = table();
    Started g{code, host_token, guest_token, std::make_unique<WsClient>(port(a)), std::make_unique<WsClient>(port(b))};
    hello(*g.host, code, host_token);
    hello(*g.guest, code, guest_token);
    g.host->send({{"t", "start"}});
    g.guest->wait_for("state", at_version(0));
    return g;
  }
  static void hello(WsClient& c, const std::string& code, const std::string& token) {
    json::object m{{"t", "hello"}, {"code", code}};
    if (!token.empty()) m["token"] = token;
    c.send(m);
    c.wait_for("welcome");
  }

  std::filesystem::path dir_;
  uint16_t pg_port_ = 0, redis_port_ = 0;
  std::string pg_, redis_;
  std::vector<std::unique_ptr<Server>> servers_;
  std::unique_ptr<Nginx> nginx_;
};

const char* WHITE_MATE[] = {"b1d2", "b8d7", "d2c4", "g8e7", "c4d6"};

}  // namespace

TEST_F(Cluster, PlayersAtTwoInstancesPlayToMateASpectatorAtTheThirdSeesEveryMoveInOrder) {
  auto [code, hostToken, guestToken] = table();
  WsClient host(port(0)), guest(port(1)), spectator(port(2)), viaNginx(front());
  hello(host, code, hostToken);
  hello(guest, code, guestToken);
  // The spectators take events, as the web client does: each carries the
  // actions since the last one, so the moves must add up.
  for (WsClient* c : {&spectator, &viaNginx}) {
    c->send({{"t", "hello"}, {"code", code}, {"events", true}});
    c->wait_for("welcome");
  }
  // Each player sees the other online, though they are at different instances.
  auto other_online = [](WsClient& c, int seat) {
    json::value p = c.wait_for("party", [seat](const json::value& m) {
      return m.at("players").as_array().size() == 2 && m.at("players").as_array()[size_t(seat)].at("online").as_bool();
    });
    return p.is_object();
  };
  EXPECT_TRUE(other_online(host, 1));
  EXPECT_TRUE(other_online(guest, 0));
  host.send({{"t", "start"}});
  for (WsClient* c : {&host, &guest, &spectator, &viaNginx}) c->wait_for("state", at_version(0));
  for (int v = 0; v < 5; ++v) {
    WsClient& mover = v % 2 == 0 ? host : guest;
    mover.send({{"t", "move"}, {"v", v}, {"move", WHITE_MATE[v]}, {"id", "m" + std::to_string(v)}});
    EXPECT_EQ(mover.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); }).at("v").as_int64(), v + 1);
    (v % 2 == 0 ? guest : host).wait_for("state", at_version(v + 1));
  }
  for (WsClient* c : {&spectator, &viaNginx}) {
    std::vector<std::string> moves;
    int64_t version = 0;
    json::value last;
    for (auto deadline = Clock::now() + 10s; version < 5 && Clock::now() < deadline;) {
      json::value m = c->next(ms_left(deadline));
      if (m.is_null()) break;
      if (field(m, "t") != "moved") continue;
      EXPECT_EQ(m.at("from").as_int64(), version) << "no gap, no repeat";
      for (const auto& a : m.at("actions").as_array()) moves.emplace_back(a.as_string());
      version = m.at("v").as_int64();
      last = m;
    }
    EXPECT_EQ(moves, (std::vector<std::string>(std::begin(WHITE_MATE), std::end(WHITE_MATE))));
    ASSERT_TRUE(last.is_object());
    EXPECT_EQ(str(last, "result"), "1-0");
    EXPECT_EQ(str(last, "reason"), "checkmate");
  }
  // An instance asked to stop (SIGTERM) drains and exits cleanly, bus and all.
  kill(servers_[2]->pid(), SIGTERM);
  for (auto deadline = Clock::now() + 15s; servers_[2]->alive() && Clock::now() < deadline;)
    std::this_thread::sleep_for(50ms);
  EXPECT_EQ(servers_[2]->how_it_ended(), "exited with status 0");
}

// The same turn, two moves at once: the player's two browsers at different
// instances each send a move for version 0. Exactly one is accepted, the other
// is refused with `conflict`, and both browsers end on the same game.
TEST_F(Cluster, ConflictingMovesAtTwoInstancesOneIsAcceptedBothEndTheSame) {
  for (int round = 0; round < 5; ++round) {
    Started g = started(0, 1);
    WsClient second(port(1));  // the host's other browser, at the guest's instance
    hello(second, g.code, g.host_token);
    second.wait_for("state", at_version(0));
    g.host->send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "a"}});
    second.send({{"t", "move"}, {"v", 0}, {"move", "d3d4"}, {"id", "b"}});
    int accepted = 0, refused = 0;
    // The winning move may reach the refused one's browser before the
    // refusal does (from the other instance, while its own was being stored).
    std::map<WsClient*, json::value> state;
    for (WsClient* c : {g.host.get(), &second}) {
      json::value answer;
      for (auto deadline = Clock::now() + 10s; answer.is_null() && Clock::now() < deadline;) {
        json::value m = c->next(ms_left(deadline));
        if (m.is_null()) break;
        const std::string t = field(m, "t");
        if ((t == "ack" || t == "error") && m.as_object().contains("id")) answer = m;
        if (t == "state" && at_version(1)(m)) state[c] = m;
      }
      ASSERT_TRUE(answer.is_object()) << "round " << round;
      if (field(answer, "t") == "ack") ++accepted;
      else if (field(answer, "code") == "conflict") ++refused;
    }
    EXPECT_EQ(accepted, 1) << "round " << round;
    EXPECT_EQ(refused, 1) << "round " << round;
    auto state_of = [&](WsClient& c) { return state.count(&c) ? state[&c] : c.wait_for("state", at_version(1)); };
    json::value a = state_of(*g.host), b = state_of(second), c = g.guest->wait_for("state", at_version(1));
    ASSERT_TRUE(a.is_object() && b.is_object() && c.is_object()) << "round " << round;
    EXPECT_EQ(json::serialize(a.at("moves")), json::serialize(b.at("moves")));
    EXPECT_EQ(json::serialize(a.at("moves")), json::serialize(c.at("moves")));
  }
}

// A turn-based table held at three instances: its player subscribed to Web
// Push at one of them, the move was made at another. Each push goes out once,
// and when the 45 days have passed at every instance, the table ends once,
// with one push.
TEST_F(Cluster, ATurnBasedTableEndsOnceWithOnePushWhicheverInstancesHoldIt) {
  namespace wp = makruk::server::webpush;
  makruk::testing::PushReceiver rx;
  auto [code, hostToken, guestToken] = table(R"({"name":"Somchai","mode":"turn"})");
  WsClient host(port(0)), guest(port(1));
  hello(host, code, hostToken);
  hello(guest, code, guestToken);
  // The guest's browser subscribes through the third instance.
  wp::KeyPair browser = wp::KeyPair::generate();
  const std::string auth = "sixteen-byte-key";
  json::object sub{{"endpoint", rx.url("/push/guest")},
                   {"keys", json::object{{"p256dh", wp::b64url_encode(browser.public_raw())},
                                         {"auth", wp::b64url_encode(auth)}}}};
  json::object req{{"subscription", sub},
                   {"lang", "en"},
                   {"tables", json::array{json::object{{"code", code}, {"token", guestToken}}}}};
  Reply r = request(port(2), http::verb::post, "/api/push/subscribe", json::serialize(req));
  ASSERT_EQ(r.status, 200) << json::serialize(r.body);
  host.send({{"t", "start"}});
  guest.wait_for("state", at_version(0));
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}});
  guest.wait_for("state", at_version(1));
  // Should it fail: what each instance's sender did (its errors are on the standard error).
  auto pushes = [&] {
    std::string out;
    for (int i = 0; i < 3; ++i) {
      const std::string m = request(port(i), http::verb::get, "/metrics").text;
      out += "\ninstance " + std::to_string(i) + ":";
      for (const char* name : {"push_pending", "push_delivered_total", "push_failed_total", "push_retries_total"})
        out += std::string(" ") + name + " " + metric(m, name);
    }
    return out;
  };
  ASSERT_TRUE(rx.wait_for(1, 20s)) << "the instance where the move was made pushed it" << pushes();
  std::string why;
  auto turn = wp::decrypt(rx.requests()[0].body, browser, auth, &why);
  ASSERT_TRUE(turn) << why;
  EXPECT_EQ(str(json::parse(*turn), "kind"), "turn");

  // 45 days and a minute later, at every instance (each looks for due tables).
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(request(port(i), http::verb::post, "/api/test/clock", R"({"advanceMs":3888060000})").status, 200);
  for (WsClient* c : {&host, &guest}) EXPECT_EQ(str(c->wait_for("state", at_version(2)), "reason"), "expired");
  ASSERT_TRUE(rx.wait_for(2, 20s)) << pushes();
  auto end = wp::decrypt(rx.requests()[1].body, browser, auth, &why);
  ASSERT_TRUE(end) << why;
  EXPECT_EQ(str(json::parse(*end), "kind"), "expired");
  EXPECT_FALSE(rx.wait_for(3, 3s)) << "one end, one push";
  // Every instance says it ended, once.
  for (int i = 0; i < 3; ++i) {
    Reply p = request(port(i), http::verb::get, "/api/parties/" + code);
    EXPECT_EQ(str(p.body.at("party"), "status"), "expired") << "instance " << i;
  }
}

// A seat taken at another instance while this one holds the table and the
// bus has not told it yet (Redis stalled here): My games and a push
// subscription through this instance read the table again before calling
// the token unknown, as a hello does.
TEST_F(Cluster, ASeatTakenElsewhereIsFoundForMyGamesAndPushBeforeTheBusTells) {
  namespace wp = makruk::server::webpush;
  Reply c = request(port(2), http::verb::post, "/api/parties", R"({"name":"Somchai","mode":"turn"})");
  ASSERT_EQ(c.status, 201) << c.text;
  const std::string code = str(c.body, "code");
  const auto stalled = stall_redis();
  ASSERT_TRUE(stalled->stopped);
  Reply j = request(port(1), http::verb::post, "/api/parties/" + code + "/join", R"({"name":"Dara"})");
  ASSERT_EQ(j.status, 200) << j.text;
  const std::string guest = str(j.body, "token");
  const json::array pairs{json::object{{"code", code}, {"token", guest}}};
  Reply games = request(port(2), http::verb::post, "/api/my-games", json::serialize(json::object{{"tables", pairs}}));
  ASSERT_EQ(games.status, 200) << games.text;
  ASSERT_EQ(games.body.at("games").as_array().size(), 1u) << games.text;
  EXPECT_EQ(games.body.at("games").as_array()[0].at("seat").as_int64(), 1);
  EXPECT_EQ(games.body.at("games").as_array()[0].at("opponent"), json::value("Somchai"));
  EXPECT_TRUE(games.body.at("unknown").as_array().empty()) << games.text;
  makruk::testing::PushReceiver rx;
  wp::KeyPair browser = wp::KeyPair::generate();
  json::object sub{{"endpoint", rx.url("/push/guest")},
                   {"keys", json::object{{"p256dh", wp::b64url_encode(browser.public_raw())},
                                         {"auth", wp::b64url_encode("sixteen-byte-key")}}}};
  Reply r = request(port(2), http::verb::post, "/api/push/subscribe",
                    json::serialize(json::object{{"subscription", sub}, {"lang", "en"}, {"tables", pairs}}));
  ASSERT_EQ(r.status, 200) << r.text;
  EXPECT_EQ(r.body.at("subscribed"), (json::array{json::value(code)})) << r.text;
  // A token no seat holds is still unknown after the table is read again.
  const json::array wrong{json::object{{"code", code}, {"token", "not-a-seat"}}};
  Reply none = request(port(2), http::verb::post, "/api/my-games", json::serialize(json::object{{"tables", wrong}}));
  ASSERT_EQ(none.status, 200) << none.text;
  EXPECT_TRUE(none.body.at("games").as_array().empty());
  EXPECT_EQ(none.body.at("unknown"), (json::array{json::value(code)}));
}

TEST_F(Cluster, AnInstanceKilledMidGameLosesNothingAcknowledged) {
  Started g = started(0, 1);
  auto& host = g.host;
  WsClient& guest = *g.guest;
  const std::string code = g.code, hostToken = g.host_token;
  host->send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "a"}});
  host->wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
  guest.wait_for("state", at_version(1));
  servers_[0]->kill_hard();
  host.reset();
  // The host comes back through nginx, which passes over the dead instance.
  WsClient again(front());
  hello(again, code, hostToken);
  json::value s = again.wait_for("state");
  EXPECT_EQ(s.at("v").as_int64(), 1);
  guest.send({{"t", "move"}, {"v", 1}, {"move", "d6d5"}, {"id", "b"}});
  guest.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
  EXPECT_EQ(again.wait_for("state", at_version(2)).at("san").as_array().back().as_string(), "d5");
}

// A table with a clock: its clocks come from the stored times, so the
// instance a player comes back to after theirs died has the same; and the
// game ends on time at whichever instance looks when the time runs out.
TEST_F(Cluster, AClockedGameKeepsItsClocksWhenItsInstanceDiesAndEndsOnTimeElsewhere) {
  auto [code, host_token, guest_token] = table(R"({"name":"Somchai","clock":{"minutes":1,"increment":2}})");
  auto host = std::make_unique<WsClient>(port(0));
  WsClient guest(port(1));
  hello(*host, code, host_token);
  hello(guest, code, guest_token);
  host->send({{"t", "start"}});
  guest.wait_for("state", at_version(0));
  host->send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "a"}});
  host->wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
  const json::value clock = guest.wait_for("state", at_version(1)).at("clock");
  EXPECT_EQ(clock.at("running").as_string(), "b");
  EXPECT_EQ(clock.at("b").as_int64(), 60000);
  servers_[0]->kill_hard();
  host.reset();
  WsClient again(front());  // nginx passes over the dead instance
  hello(again, code, host_token);
  EXPECT_EQ(json::serialize(again.wait_for("state", at_version(1)).at("clock")), json::serialize(clock));
  // Black thinks past its minute (instance 1's clock moves on): it loses on time, told to both.
  Reply moved = request(port(1), http::verb::post, "/api/test/clock", R"({"advanceMs":61000})");
  EXPECT_EQ(moved.status, 200);
  auto on_time = [](const json::value& m) { return m.at("v").as_int64() == 2; };
  const json::value ended = again.wait_for("state", on_time);
  EXPECT_EQ(ended.at("reason").as_string(), "time");
  EXPECT_EQ(ended.at("result").as_string(), "1-0");
  EXPECT_EQ(guest.wait_for("state", on_time).at("reason").as_string(), "time");
}

// A tournament across instances: made, joined and started at different
// instances; each game's end, at whichever instance holds its table, pairs
// the next round for all of them; and a game whose instance was killed just
// after it ended (before it could tell the tournament) is found by another.
TEST_F(Cluster, ATournamentRunsAcrossInstancesAndOutlivesOneOfThem) {
  Reply made = request(port(0), http::verb::post, "/api/tournaments", R"({"format":"swiss","rounds":2})");
  ASSERT_EQ(made.status, 201) << json::serialize(made.body);
  const std::string code = str(made.body, "code"), host = str(made.body, "hostToken");
  std::vector<std::string> tokens;
  for (int i = 0; i < 4; ++i) {
    Reply j = request(port(i % 3), http::verb::post, "/api/tournaments/" + code + "/join",
                      R"({"name":"P)" + std::to_string(i + 1) + "\"}");
    ASSERT_EQ(j.status, 201) << json::serialize(j.body);
    tokens.push_back(j.body.at("you").at("token").as_string().c_str());
  }
  ASSERT_EQ(request(port(1), http::verb::post, "/api/tournaments/" + code + "/act",
                    R"({"token":")" + host + R"(","action":"start"})").status, 200);
  auto get = [&](int i) {
    Reply r = request(port(i), http::verb::get, "/api/tournaments/" + code);
    EXPECT_EQ(r.status, 200) << "instance " << i << ": " << json::serialize(r.body);
    return r.status == 200 ? r.body : json::value(json::object{{"round", -1}, {"status", "error"}, {"games", json::array{}}});
  };
  // The player with the higher number resigns at instance `at`.
  auto resign = [&](int at, const json::value& g) {
    const int loser = int(std::max(g.at("white").as_int64(), g.at("black").as_int64()));
    WsClient c(port(at));
    hello(c, g.at("table").as_string().c_str(), tokens[size_t(loser - 1)]);
    const json::value st = c.wait_for("state");
    c.send({{"t", "resign"}, {"v", st.at("v")}, {"id", "r"}});
    c.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
  };
  auto games_of = [](const json::value& t, int round) {
    std::vector<json::value> out;
    for (const auto& g : t.at("games").as_array())
      if (g.at("round").as_int64() == round) out.push_back(g);
    return out;
  };
  const auto r1 = games_of(get(2), 1);
  ASSERT_EQ(r1.size(), 2u);
  resign(2, r1[0]);
  resign(1, r1[1]);
  // Round 2 is paired, and every instance says so.
  for (int i = 0; i < 3; ++i) {
    json::value t;
    for (int tries = 0; tries < 100; ++tries) {
      t = get(i);
      if (t.at("round").as_int64() == 2) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_EQ(t.at("round").as_int64(), 2) << "instance " << i << ": " << json::serialize(t);
  }
  // One game of round 2 ends at instance 0, which is killed at once.
  const auto r2 = games_of(get(1), 2);
  ASSERT_EQ(r2.size(), 2u);
  resign(0, r2[0]);
  servers_[0]->kill_hard();
  resign(1, r2[1]);
  // Looked at a little later, instance 1 finds the game's end itself.
  EXPECT_EQ(request(port(1), http::verb::post, "/api/test/clock", R"({"advanceMs":30000})").status, 200);
  json::value t;
  for (int tries = 0; tries < 100; ++tries) {
    t = get(1);
    if (t.at("status").as_string() == "finished") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(t.at("status").as_string(), "finished") << json::serialize(t);
  for (const auto& g : t.at("games").as_array()) EXPECT_FALSE(g.at("result").is_null());
  const json::value last = get(2);
  ASSERT_TRUE(last.as_object().contains("standings"));
  EXPECT_EQ(last.at("standings").at(0).at("points").as_string(), "2");
}

// Joins at three instances at once: the events' versions make them take
// turns (an instance that finds its version taken reads what came first and
// tries again), so each player is numbered once and none is lost.
TEST_F(Cluster, JoinsAtThreeInstancesAtOnceNumberEveryPlayerOnce) {
  Reply made = request(port(0), http::verb::post, "/api/tournaments", R"({"format":"arena","minutes":60})");
  ASSERT_EQ(made.status, 201) << json::serialize(made.body);
  const std::string path = "/api/tournaments/" + str(made.body, "code");
  std::atomic<int> joined{0}, busy{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 15; ++k) {
        const Reply r = request(port(i), http::verb::post, path + "/join",
                                R"({"name":"I)" + std::to_string(i) + "-" + std::to_string(k) + "\"}");
        if (r.status == 201) ++joined;
        else if (r.status == 409) ++busy;  // "changed meanwhile; try again", after five tries
        else ADD_FAILURE() << r.status << " " << json::serialize(r.body);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_GE(joined.load(), 40);
  EXPECT_EQ(joined.load() + busy.load(), 45);
  for (int i = 0; i < 3; ++i) {
    const Reply got = request(port(i), http::verb::get, path);
    EXPECT_EQ(got.body.at("players").as_array().size(), size_t(joined.load())) << "instance " << i;
  }
}

TEST_F(Cluster, ACpuGameWhoseInstanceIsKilledMidSearchStillGetsItsReply) {
  auto [code, token, unused] = table(R"({"name":"Somchai","cpu":8})");
  {
    WsClient player(port(0));
    hello(player, code, token);
    player.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "a"}});
    player.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); });
    servers_[0]->kill_hard();  // while the CPU (level 8, up to 2 s) searches
  }
  WsClient player(front());
  hello(player, code, token);
  // Another instance takes the turn over once the dead one's lease runs out.
  json::value s = player.wait_for("state", at_version(2), 40s);
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s.at("moves").as_array().size(), 2u);
}

TEST_F(Cluster, AfterRedisRestartsTheBusCarriesChangesAgain) {
  Started g = started(0, 1);
  WsClient &host = *g.host, &guest = *g.guest;
  run(SERVICES + "/redis.sh stop " + (dir_ / "redis").string());
  redis_ = run(SERVICES + "/redis.sh start " + (dir_ / "redis").string() + " " + std::to_string(redis_port_));
  ASSERT_FALSE(redis_.empty());
  // The instances' listeners come back by themselves (within a second or so):
  // a move made meanwhile may miss the bus (a sync fetches it); a later one
  // goes through.
  auto arrives = [](WsClient& c, int64_t v, std::chrono::milliseconds within) {
    for (auto deadline = Clock::now() + within; Clock::now() < deadline;) {
      json::value m = c.next(ms_left(deadline));
      if (m.is_null()) return false;
      if (field(m, "t") == "state" && m.at("v").as_int64() == v) return true;
    }
    return false;
  };
  const char* white[] = {"a3a4", "b3b4", "c3c4", "d3d4"};
  const char* black[] = {"a6a5", "b6b5", "c6c5", "d6d5"};
  bool carried = false;
  for (int i = 0; i < 4 && !carried; ++i) {
    std::this_thread::sleep_for(300ms);
    host.send({{"t", "move"}, {"v", 2 * i}, {"move", white[i]}});
    carried = arrives(guest, 2 * i + 1, 2s);
    if (!carried) {
      guest.send({{"t", "sync"}});
      ASSERT_TRUE(arrives(guest, 2 * i + 1, 5s));
    }
    guest.send({{"t", "move"}, {"v", 2 * i + 1}, {"move", black[i]}});
    if (!arrives(host, 2 * i + 2, 2s)) {
      host.send({{"t", "sync"}});
      ASSERT_TRUE(arrives(host, 2 * i + 2, 5s));
    }
  }
  EXPECT_TRUE(carried) << "a change reached the other instance through the restarted Redis";
}

// Redis stopped (SIGSTOP, so that connections hang rather than fail): moves
// at an instance go on being acknowledged, and a new table is made, while the
// stall lasts (longer than the instances' heartbeat); afterwards what was
// played reaches a spectator at another instance.
TEST_F(Cluster, WhileRedisIsStalledMovesGoOnAndTheOthersCatchUpAfter) {
  // Ouk Chatrang, where the knights may go out and back for ever.
  auto [code, host_token, guest_token] = table(R"({"name":"Somchai","variant":"ouk"})");
  WsClient host(port(0)), guest(port(0)), spectator(port(1));
  hello(host, code, host_token);
  hello(guest, code, guest_token);
  hello(spectator, code, "");
  host.send({{"t", "start"}});
  guest.wait_for("state", at_version(0));
  const auto stalled = stall_redis();
  ASSERT_TRUE(stalled->stopped);
  const char* shuffle[] = {"b1d2", "b8d7", "d2b1", "d7b8"};
  int v = 0;
  bool made = false;
  for (auto until = Clock::now() + 8s; Clock::now() < until; ++v) {
    WsClient& side = v % 2 ? guest : host;
    const std::string id = "m" + std::to_string(v);
    side.send({{"t", "move"}, {"v", v}, {"move", shuffle[v % 4]}, {"id", id}});
    json::value ack = side.wait_for("ack", [&](const json::value& m) { return field(m, "id") == id; }, 2s);
    ASSERT_FALSE(ack.is_null()) << "move " << v << " was not acknowledged while Redis was stalled";
    if (v == 20) {
      RequestOptions o;
      o.timeout = 3s;
      Reply c = request(port(0), http::verb::post, "/api/parties", R"({"name":"Somsak"})", o);
      EXPECT_EQ(c.status, 201) << "a table made while Redis was stalled: " << json::serialize(c.body);
      made = true;
    }
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(made);
  EXPECT_GT(v, 50);
  // Finding an opponent goes on too, at this instance alone (its shared queue
  // does not answer): two seekers there are paired; the lobby's counts and
  // /readyz answer within a bounded time, the latter saying what is missing.
  {
    WsOptions from2, from3;
    from2.from = "127.0.0.2";
    from3.from = "127.0.0.3";
    WsClient a(port(0), from2), b(port(0), from3);
    auto seek = [](const std::string& name, const std::string& browser) {
      return json::object{{"t", "seek"}, {"name", name}, {"browser", browser}, {"variant", "ouk"}, {"counting", ""},
                          {"mode", "turn"}};
    };
    a.send(seek("Noi", "stalled-a"));
    EXPECT_FALSE(a.wait_for("seeking", {}, 3s).is_null()) << "a seek answered while Redis was stalled";
    b.send(seek("Sokha", "stalled-b"));
    json::value pa = a.wait_for("paired", {}, 3s), pb = b.wait_for("paired", {}, 3s);
    ASSERT_FALSE(pa.is_null());
    ASSERT_FALSE(pb.is_null());
    EXPECT_EQ(field(pa, "code"), field(pb, "code"));
    RequestOptions o;
    o.timeout = 3s;
    EXPECT_EQ(request(port(0), http::verb::get, "/api/lobby", "", o).status, 200);
    Reply ready = request(port(0), http::verb::get, "/readyz", "", o);
    EXPECT_EQ(ready.status, 503);
    EXPECT_EQ(str(ready.body, "status"), "bus unavailable");
  }
  stalled->resume();
  // What was said while Redis was stalled goes out now: the spectator at the
  // other instance sees the last move.
  EXPECT_FALSE(spectator.wait_for("state", at_version(v), 15s).is_null());
  bool ready = false;
  for (auto until = Clock::now() + 40s; !ready && Clock::now() < until; std::this_thread::sleep_for(200ms))
    ready = request(port(0), http::verb::get, "/readyz").status == 200;
  EXPECT_TRUE(ready) << "ready again once Redis answers";
}

TEST_F(Cluster, WhilePostgresRestartsRequestsFailCleanlyThenEverythingResumes) {
  Started g = started(0, 1);
  WsClient &host = *g.host, &guest = *g.guest;
  const std::string bin = run("ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1");
  const std::string as_pg = geteuid() == 0 ? "runuser -u postgres -- " : "";
  const std::string data = (dir_ / "pg" / "data").string();
  run(as_pg + bin + "/pg_ctl -D " + data + " -m fast -w stop >/dev/null 2>&1");
  // Meanwhile: a move is refused with an error, and nothing changes.
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "x"}});
  json::value e = host.wait_for("error", [](auto& m) { return m.as_object().contains("id"); });
  ASSERT_TRUE(e.is_object());
  EXPECT_EQ(str(e, "code"), "conflict");
  Reply r = request(front(), http::verb::get, "/readyz");
  EXPECT_EQ(r.status, 503) << "not ready without the store";
  run(as_pg + bin + "/pg_ctl -D " + data + " -l " + (dir_ / "pg" / "server.log").string() +
      " -w -t 60 -o \"-c listen_addresses=127.0.0.1 -p " + std::to_string(pg_port_) + " -k " + (dir_ / "pg").string() +
      "\" start >/dev/null 2>&1");
  // Back: the refused move was not played; it can be played now.
  host.send({{"t", "sync"}});
  EXPECT_EQ(host.wait_for("state").at("v").as_int64(), 0);
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "y"}});
  EXPECT_EQ(host.wait_for("ack", [](auto& m) { return m.as_object().contains("id"); }).at("v").as_int64(), 1);
  guest.wait_for("state", at_version(1));
  EXPECT_EQ(request(front(), http::verb::get, "/readyz").status, 200);
}

// One address cannot hold more connections than the cap by spreading them over
// the instances: nginx counts them for all the instances together (each
// instance sees only nginx's address). Other addresses are not affected, and a
// place freed is taken again.
TEST_F(Cluster, ConnectionsPerClientAreCappedAtTheFrontForAllInstancesTogether) {
  auto [code, host_token, guest_token] = table();
  std::vector<std::unique_ptr<WsClient>> held;
  for (int i = 0; i < PER_CLIENT; ++i) {
    held.push_back(std::make_unique<WsClient>(front(), WsOptions{"127.0.0.2"}));
    ASSERT_TRUE(held.back()->connected()) << i << ": " << held.back()->error();
    hello(*held.back(), code, "");  // a spectator each, so that no hello deadline closes them
  }
  // Round robin spread them: each instance holds a few, far under its own cap.
  WsClient over(front(), WsOptions{"127.0.0.2"});
  EXPECT_FALSE(over.connected());
  EXPECT_EQ(over.handshake_status(), 429) << over.error();
  Reply refused = request(front(), http::verb::get, "/api/lobby", "", RequestOptions{"127.0.0.2"});
  EXPECT_EQ(refused.status, 429);
  // Someone else is let in, and plays.
  WsClient other(front(), WsOptions{"127.0.0.3"});
  ASSERT_TRUE(other.connected()) << other.error();
  hello(other, code, host_token);
  EXPECT_EQ(request(front(), http::verb::get, "/api/lobby", "", RequestOptions{"127.0.0.3"}).status, 200);
  // One of the first address's connections closes: its place is free again.
  held.pop_back();
  bool again = false;
  for (int i = 0; i < 100 && !again; ++i) {
    WsClient next(front(), WsOptions{"127.0.0.2"});
    again = next.connected();
    if (!again) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(again);
}

// The shipped HTTPS server (deploy/nginx.conf) with a throwaway certificate: TLS 1.2 or newer
// only, HSTS on its answers, a game played over a WebSocket on TLS with the other player at
// another instance; plain HTTP answers the certificate's challenge and sends the rest to HTTPS.
TEST_F(Cluster, TheShippedHttpsServerCarriesAGameAndPlainHttpIsSentThere) {
  const std::string ca = nginx_->certificate();
  const std::string https = "https://127.0.0.1:" + std::to_string(nginx_->tls_port());
  const std::string plain = "http://127.0.0.1:" + std::to_string(nginx_->redirect_port());
  const std::string head = shell("curl -sS --max-time 10 --cacert '" + ca + "' -D - -o /dev/null " + https + "/api/lobby").second;
  EXPECT_NE(head.find(" 200"), std::string::npos) << head;
  EXPECT_NE(head.find("strict-transport-security: max-age=63072000"), std::string::npos) << head;
  // An old protocol, or a client that does not trust the certificate, gets nothing.
  EXPECT_EQ(run("curl -s --max-time 10 --cacert '" + ca + "' --tlsv1.1 --tls-max 1.1 -o /dev/null -w '%{http_code}' " +
                https + "/api/lobby"),
            "000");
  EXPECT_EQ(run("curl -s --max-time 10 -o /dev/null -w '%{http_code}' " + https + "/api/lobby"), "000");
  const std::string moved = shell("curl -sS --max-time 10 -D - -o /dev/null " + plain + "/p/ABC234").second;
  EXPECT_NE(moved.find(" 301"), std::string::npos) << moved;
  EXPECT_NE(moved.find("Location: https://127.0.0.1/p/ABC234"), std::string::npos) << moved;
  EXPECT_EQ(run("curl -sS --max-time 10 " + plain + "/.well-known/acme-challenge/token"), "challenge answered");
  // A game: the host over TLS through nginx, the guest at an instance directly.
  auto [code, hostToken, guestToken] = table();
  TlsWsClient host(nginx_->tls_port(), ca);
  ASSERT_TRUE(host.ok());
  WsClient guest(port(1));
  host.send({{"t", "hello"}, {"code", code}, {"token", hostToken}});
  ASSERT_FALSE(host.wait_for("welcome").is_null());
  hello(guest, code, guestToken);
  host.send({{"t", "start"}});
  guest.wait_for("state", at_version(0));
  host.send({{"t", "move"}, {"v", 0}, {"move", "e3e4"}, {"id", "w1"}});
  EXPECT_FALSE(host.wait_for("ack").is_null());
  EXPECT_EQ(guest.wait_for("state", at_version(1)).at("san").as_array().back().as_string(), "e4");
  guest.send({{"t", "move"}, {"v", 1}, {"move", "d6d5"}});
  json::value after;  // the states in order, up to the one after d5
  for (int i = 0; i < 4 && (after.is_null() || after.at("v").as_int64() < 2); ++i) after = host.wait_for("state");
  ASSERT_FALSE(after.is_null());
  EXPECT_EQ(after.at("v").as_int64(), 2);
  EXPECT_EQ(after.at("san").as_array().back().as_string(), "d5");
}
