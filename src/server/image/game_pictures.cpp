#include "server/image/game_pictures.h"

namespace makruk::server {

ImageLayout picture_layout(PictureKind kind) {
  return kind == PictureKind::Card ? ImageLayout{1200, 630, false} : ImageLayout{720, 720, false};
}

std::string draw_game_picture(const GameSnapshot& game, PictureKind kind, std::string* error) {
  Position pos;
  if (!pos.set(game.fen, game.variant == "ouk" ? Variant::Ouk : Variant::Makruk, Counting::Automatic, error))
    return {};
  const ImageLayout layout = picture_layout(kind);
  return svg_to_png(position_svg(pos, game.last_move, layout), layout.width, layout.height, error);
}

std::string PictureCache::key(const GameSnapshot& game, PictureKind kind) {
  return game.id + (kind == PictureKind::Card ? " card " : " square ") + game.fen + " " + game.last_move;
}

std::shared_ptr<const std::string> PictureCache::get(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  return it->second->second;
}

void PictureCache::put(const std::string& key, std::shared_ptr<const std::string> png) {
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    it->second->second = std::move(png);
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.emplace_front(key, std::move(png));
  index_[key] = order_.begin();
  while (order_.size() > capacity_) {
    index_.erase(order_.back().first);
    order_.pop_back();
  }
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string_view reason_words(std::string_view reason) {
  if (reason == "checkmate") return "checkmate";
  if (reason == "resignation") return "resignation";
  if (reason == "stalemate") return "stalemate";
  if (reason == "bare-kings") return "bare kings";
  if (reason == "repetition") return "repetition";
  if (reason == "insufficient-material") return "no mate possible";
  if (reason == "count-expired") return "the count ran out";
  if (reason == "count-mate") return "mate within the count";
  if (reason == "expired") return "time ran out";
  if (reason == "agreement") return "agreed";
  if (reason == "aborted") return "called off";
  if (reason == "time") return "on time";
  return reason;
}

}  // namespace

std::string game_page_html(const std::string& index_html, const GameSnapshot& game, const std::string& public_url) {
  const std::string variant = game.variant == "ouk" ? "Ouk Chatrang" : "Makruk";
  const std::string title = game.white + " – " + game.black + " · " + variant;
  // Moves as players count them (a move of each side), not half-moves.
  const int moves = (game.moves + 1) / 2;
  const std::string moves_text = std::to_string(moves) + (moves == 1 ? " move" : " moves");
  std::string about;
  if (game.result == "*") {
    about = "A game in progress, " + moves_text + " so far.";
  } else if (game.reason == "aborted") {
    about = "A game called off after " + moves_text + ": a player made no first move.";
  } else {
    const std::string score = game.result == "1-0" ? "1–0" : game.result == "0-1" ? "0–1" : "½–½";
    about = score + " (" + std::string(reason_words(game.reason)) + ") after " + moves_text + ".";
  }
  about += " Replay and review it on Makruk.";
  const std::string page = public_url + "/g/" + game.id;
  const std::string picture = public_url + "/api/games/" + game.id + ".png?size=card";
  std::string head;
  auto meta = [&](std::string_view attr, std::string_view name, const std::string& content) {
    head += "    <meta " + std::string(attr) + "=\"" + std::string(name) + "\" content=\"" + html_escape(content) + "\" />\n";
  };
  meta("property", "og:type", "website");
  meta("property", "og:site_name", "Makruk");
  meta("property", "og:title", title);
  meta("property", "og:description", about);
  meta("property", "og:url", page);
  meta("property", "og:image", picture);
  meta("property", "og:image:type", "image/png");
  meta("property", "og:image:width", "1200");
  meta("property", "og:image:height", "630");
  meta("property", "og:image:alt", "The board after the last move");
  meta("name", "twitter:card", "summary_large_image");
  std::string html = index_html;
  if (size_t t0 = html.find("<title>"), t1 = html.find("</title>"); t0 != std::string::npos && t1 > t0)
    // The site's name once: a Makruk game's title ends with it already.
    html.replace(t0, t1 + 8 - t0,
                 "<title>" + html_escape(title) + (game.variant == "ouk" ? " · Makruk" : "") + "</title>");
  const std::string description = "<meta name=\"description\" content=\"";
  if (size_t d = html.find(description); d != std::string::npos) {
    const size_t from = d + description.size(), to = html.find('"', from);
    if (to != std::string::npos) html.replace(from, to - from, html_escape(about));
  }
  if (size_t end = html.find("</head>"); end != std::string::npos) html.insert(end, head);
  return html;
}

}  // namespace makruk::server
