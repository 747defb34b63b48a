#include "server/buses/bus_local.h"

#include <algorithm>
#include <optional>

namespace makruk::server {

namespace {
constexpr int64_t MINUTE_MS = 60000;
}  // namespace

// One hub's side of the local bus.
class LocalBuses::Member : public Bus {
 public:
  Member(LocalBuses& buses, std::string id) : buses_(buses), id_(std::move(id)) {}
  ~Member() override { buses_.detach(id_); }

  void publish(const BusMessage& m) override { buses_.publish(id_, m); }
  void start(std::function<void(BusMessage)> handler) override { buses_.start(id_, std::move(handler)); }
  void stop() override { buses_.stop(id_); }
  void hold(const std::string& code, bool held) override { buses_.hold(id_, code, held); }
  bool healthy() override { return true; }
  bool up() const override { return true; }
  void ask(std::function<void()> question) override { buses_.ask(id_, std::move(question)); }
  // Answered at once, on the caller's thread: the count is here.
  void count(const std::string& key, int64_t now, bool record,
             std::function<void(std::optional<int64_t>)> done) override {
    done(buses_.count(key, now, record));
  }
  std::optional<std::vector<std::string>> seeks() override { return buses_.seeks(); }
  std::optional<size_t> seek_count() override { return buses_.seek_count(); }
  bool add_seek(const std::string& entry, int64_t since) override { return buses_.add_seek(entry, since); }
  bool take_seek(const std::string& entry) override { return buses_.take_seek(entry); }
  const std::string& id() const override { return id_; }
  void alive() override {}
  bool is_alive(const std::string& instance) override { return buses_.is_alive(instance); }

 private:
  LocalBuses& buses_;
  std::string id_;
};

// A hub's bus with Redis: its siblings here directly, the other processes
// through Redis.
class LocalBuses::BesideRedis : public Bus {
 public:
  BesideRedis(LocalBuses& buses, std::unique_ptr<Bus> redis)
      : buses_(buses), redis_(std::move(redis)), local_(buses.attach(redis_->id())) {}

  void publish(const BusMessage& m) override {
    local_->publish(m);
    redis_->publish(m);
  }
  void start(std::function<void(BusMessage)> handler) override {
    local_->start(handler);
    redis_->start([this, handler](BusMessage m) {
      if (!m.instance.empty() && buses_.is_alive(m.instance)) return;  // a hub of this process: heard already
      handler(std::move(m));
    });
  }
  void stop() override {
    redis_->stop();
    local_->stop();
  }
  void hold(const std::string& code, bool held) override {
    local_->hold(code, held);
    redis_->hold(code, held);
  }
  bool healthy() override { return redis_->healthy(); }
  bool up() const override { return redis_->up(); }
  void ask(std::function<void()> question) override { redis_->ask(std::move(question)); }
  void count(const std::string& key, int64_t now, bool record,
             std::function<void(std::optional<int64_t>)> done) override {
    redis_->count(key, now, record, std::move(done));
  }
  std::optional<std::vector<std::string>> seeks() override { return redis_->seeks(); }
  std::optional<size_t> seek_count() override { return redis_->seek_count(); }
  bool add_seek(const std::string& entry, int64_t since) override { return redis_->add_seek(entry, since); }
  bool take_seek(const std::string& entry) override { return redis_->take_seek(entry); }
  const std::string& id() const override { return redis_->id(); }
  void alive() override { redis_->alive(); }
  bool is_alive(const std::string& instance) override { return redis_->is_alive(instance); }

 private:
  LocalBuses& buses_;
  std::unique_ptr<Bus> redis_;
  std::unique_ptr<Bus> local_;
};

std::unique_ptr<Bus> LocalBuses::attach_beside(std::unique_ptr<Bus> redis) {
  return std::make_unique<BesideRedis>(*this, std::move(redis));
}

LocalBuses::LocalBuses() : questions_thread_([this] { answer_questions(); }) {}

LocalBuses::~LocalBuses() {
  {
    std::lock_guard lock(questions_mutex_);
    questions_stop_ = true;
  }
  questions_wake_.notify_all();
  questions_thread_.join();
}

std::unique_ptr<Bus> LocalBuses::attach(const std::string& name) {
  std::lock_guard lock(members_mutex_);
  members_[name] = nullptr;
  return std::make_unique<Member>(*this, name);
}

void LocalBuses::publish(const std::string& from, const BusMessage& m) {
  std::lock_guard lock(members_mutex_);
  auto tell = [&](const std::string& id) {
    auto it = members_.find(id);
    if (id == from || it == members_.end() || !it->second) return;
    BusMessage copy = m;
    copy.instance = from;
    it->second(std::move(copy));
  };
  if (!m.to.empty()) return tell(m.to);  // for one hub
  if (!m.code.empty()) {                 // for those holding the table
    auto it = holders_.find(m.code);
    if (it != holders_.end())
      for (const std::string& id : it->second) tell(id);
    return;
  }
  for (const auto& [id, handler] : members_) tell(id);
}

void LocalBuses::hold(const std::string& id, const std::string& code, bool held) {
  std::lock_guard lock(members_mutex_);
  if (held) return void(holders_[code].insert(id));
  auto it = holders_.find(code);
  if (it == holders_.end()) return;
  it->second.erase(id);
  if (it->second.empty()) holders_.erase(it);
}

void LocalBuses::start(const std::string& id, std::function<void(BusMessage)> handler) {
  std::lock_guard lock(members_mutex_);
  if (auto it = members_.find(id); it != members_.end()) it->second = std::move(handler);
}

void LocalBuses::stop(const std::string& id) {
  {
    std::lock_guard lock(members_mutex_);
    if (auto it = members_.find(id); it != members_.end()) it->second = nullptr;
  }
  // Its questions not yet asked are not asked; one being asked now ends first.
  std::unique_lock lock(questions_mutex_);
  questions_.erase(std::remove_if(questions_.begin(), questions_.end(), [&](const auto& q) { return q.first == id; }),
                   questions_.end());
  questions_wake_.wait(lock, [&] { return asking_ != id; });
}

void LocalBuses::detach(const std::string& id) {
  stop(id);
  std::lock_guard lock(members_mutex_);
  members_.erase(id);
  for (auto it = holders_.begin(); it != holders_.end();) {
    it->second.erase(id);
    it = it->second.empty() ? holders_.erase(it) : std::next(it);
  }
}

void LocalBuses::ask(const std::string& id, std::function<void()> question) {
  {
    std::lock_guard lock(members_mutex_);
    auto it = members_.find(id);
    if (it == members_.end() || !it->second) return;  // stopped (or never started): never run
  }
  {
    std::lock_guard lock(questions_mutex_);
    if (questions_stop_) return;
    questions_.emplace_back(id, std::move(question));
  }
  questions_wake_.notify_all();
}

void LocalBuses::answer_questions() {
  std::unique_lock lock(questions_mutex_);
  for (;;) {
    questions_wake_.wait(lock, [&] { return questions_stop_ || !questions_.empty(); });
    if (questions_.empty()) return;
    auto [id, question] = std::move(questions_.front());
    questions_.pop_front();
    asking_ = id;
    lock.unlock();
    question();
    lock.lock();
    asking_.clear();
    questions_wake_.notify_all();
  }
}

std::optional<int64_t> LocalBuses::count(const std::string& key, int64_t now, bool record) {
  std::lock_guard lock(data_mutex_);
  // Now and then, the keys whose minute has passed go.
  if (now - counts_swept_at_ >= MINUTE_MS) {
    counts_swept_at_ = now;
    for (auto it = counts_.begin(); it != counts_.end();)
      it = !it->second.empty() && it->second.back() > now - MINUTE_MS ? std::next(it) : counts_.erase(it);
  }
  auto& times = counts_[key];
  if (record) times.push_back(now);
  // Events in the minute before `now` (they may come a little out of order).
  return int64_t(std::count_if(times.begin(), times.end(), [now](int64_t t) { return t > now - MINUTE_MS && t <= now; }));
}

std::vector<std::string> LocalBuses::seeks() {
  std::lock_guard lock(data_mutex_);
  std::vector<std::string> out;
  for (const auto& [since, entry] : seeks_) out.push_back(entry);
  return out;
}

size_t LocalBuses::seek_count() {
  std::lock_guard lock(data_mutex_);
  return seeks_.size();
}

bool LocalBuses::add_seek(const std::string& entry, int64_t since) {
  std::lock_guard lock(data_mutex_);
  seeks_.erase(std::remove_if(seeks_.begin(), seeks_.end(), [&](const auto& s) { return s.second == entry; }),
               seeks_.end());
  seeks_.insert(std::upper_bound(seeks_.begin(), seeks_.end(), std::make_pair(since, entry)), {since, entry});
  return true;
}

bool LocalBuses::take_seek(const std::string& entry) {
  std::lock_guard lock(data_mutex_);
  auto it = std::find_if(seeks_.begin(), seeks_.end(), [&](const auto& s) { return s.second == entry; });
  if (it == seeks_.end()) return false;
  seeks_.erase(it);
  return true;
}

bool LocalBuses::is_alive(const std::string& id) {
  std::lock_guard lock(members_mutex_);
  return members_.count(id) != 0;
}

}  // namespace makruk::server
