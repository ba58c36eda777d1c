/* SPDX-License-Identifier: BSD-3-Clause */
/** @file JSON reader of the golden-vector replay (see replay_json.h). */
#include "replay_json.h"

#include <stdlib.h>

namespace replay {

namespace {
const Json kNull;
}

/** Recursive-descent parser over one record. */
class Parser {
public:
	explicit Parser(const std::string &s) : s_(s) {}

	bool document(Json *out, std::string *err)
	{
		if (!value(out, 0) || (skip_ws(), pos_ != s_.size())) {
			*err = err_.empty() ? "trailing characters" : err_;
			*err += " at offset " + std::to_string(pos_);
			return false;
		}
		return true;
	}

private:
	static constexpr int kMaxDepth = 64;
	const std::string &s_;
	size_t pos_ = 0;
	std::string err_;

	void skip_ws()
	{
		while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' ||
					    s_[pos_] == '\n' || s_[pos_] == '\r'))
			pos_++;
	}

	bool fail(const char *what)
	{
		if (err_.empty())
			err_ = what;
		return false;
	}

	bool literal(const char *word)
	{
		size_t n = strlen_(word);

		if (s_.compare(pos_, n, word) != 0)
			return fail("bad literal");
		pos_ += n;
		return true;
	}

	static size_t strlen_(const char *w)
	{
		size_t n = 0;

		while (w[n])
			n++;
		return n;
	}

	bool string(std::string *out)
	{
		pos_++; /* opening quote */
		while (pos_ < s_.size() && s_[pos_] != '"') {
			char c = s_[pos_++];

			if (c != '\\') {
				out->push_back(c);
				continue;
			}
			if (pos_ >= s_.size())
				return fail("bad escape");
			c = s_[pos_++];
			switch (c) {
			case 'n':
				out->push_back('\n');
				break;
			case 't':
				out->push_back('\t');
				break;
			case 'r':
				out->push_back('\r');
				break;
			case 'b':
				out->push_back('\b');
				break;
			case 'f':
				out->push_back('\f');
				break;
			case 'u': {
				if (pos_ + 4 > s_.size())
					return fail("bad \\u escape");
				unsigned long cp = strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16);

				pos_ += 4;
				/* the vectors are ASCII; keep anything else as '?' */
				out->push_back(cp < 0x80 ? (char)cp : '?');
				break;
			}
			default:
				out->push_back(c);
				break;
			}
		}
		if (pos_ >= s_.size())
			return fail("unterminated string");
		pos_++;
		return true;
	}

	bool number(Json *out)
	{
		size_t start = pos_;

		while (pos_ < s_.size() &&
		       (isdigit_(s_[pos_]) || s_[pos_] == '-' || s_[pos_] == '+' ||
			s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E'))
			pos_++;
		if (pos_ == start)
			return fail("unexpected character");
		out->type_ = Json::Type::Number;
		out->text_ = s_.substr(start, pos_ - start);
		return true;
	}

	static bool isdigit_(char c) { return c >= '0' && c <= '9'; }

	bool value(Json *out, int depth)
	{
		if (depth > kMaxDepth)
			return fail("nesting too deep");
		skip_ws();
		if (pos_ >= s_.size())
			return fail("unexpected end");
		switch (s_[pos_]) {
		case '{':
			return object(out, depth);
		case '[':
			return array(out, depth);
		case '"':
			out->type_ = Json::Type::String;
			return string(&out->text_);
		case 't':
			out->type_ = Json::Type::Bool;
			out->bool_ = true;
			return literal("true");
		case 'f':
			out->type_ = Json::Type::Bool;
			return literal("false");
		case 'n':
			return literal("null");
		default:
			return number(out);
		}
	}

	bool array(Json *out, int depth)
	{
		out->type_ = Json::Type::Array;
		pos_++;
		skip_ws();
		if (pos_ < s_.size() && s_[pos_] == ']') {
			pos_++;
			return true;
		}
		for (;;) {
			out->items_.emplace_back();
			if (!value(&out->items_.back(), depth + 1))
				return false;
			skip_ws();
			if (pos_ < s_.size() && s_[pos_] == ',') {
				pos_++;
				continue;
			}
			if (pos_ < s_.size() && s_[pos_] == ']') {
				pos_++;
				return true;
			}
			return fail("expected , or ]");
		}
	}

	bool object(Json *out, int depth)
	{
		out->type_ = Json::Type::Object;
		pos_++;
		skip_ws();
		if (pos_ < s_.size() && s_[pos_] == '}') {
			pos_++;
			return true;
		}
		for (;;) {
			std::string key;

			skip_ws();
			if (pos_ >= s_.size() || s_[pos_] != '"')
				return fail("expected key");
			if (!string(&key))
				return false;
			skip_ws();
			if (pos_ >= s_.size() || s_[pos_] != ':')
				return fail("expected :");
			pos_++;
			if (!value(&out->members_[key], depth + 1))
				return false;
			skip_ws();
			if (pos_ < s_.size() && s_[pos_] == ',') {
				pos_++;
				continue;
			}
			if (pos_ < s_.size() && s_[pos_] == '}') {
				pos_++;
				return true;
			}
			return fail("expected , or }");
		}
	}
};

const Json &Json::operator[](const std::string &key) const
{
	if (type_ != Type::Object)
		return kNull;
	auto it = members_.find(key);
	return it == members_.end() ? kNull : it->second;
}

const Json &Json::operator[](size_t i) const
{
	return (type_ == Type::Array && i < items_.size()) ? items_[i] : kNull;
}

bool Json::has(const std::string &key) const
{
	return type_ == Type::Object && members_.count(key) != 0;
}

uint64_t Json::u64() const
{
	if (type_ == Type::Bool)
		return bool_;
	if (type_ != Type::Number && type_ != Type::String)
		return 0;
	if (text_.size() > 2 && text_[0] == '0' && (text_[1] == 'x' || text_[1] == 'X'))
		return strtoull(text_.c_str() + 2, nullptr, 16);
	if (!text_.empty() && text_[0] == '-')
		return (uint64_t)strtoll(text_.c_str(), nullptr, 10);
	if (text_.find_first_of(".eE") != std::string::npos)
		return (uint64_t)strtod(text_.c_str(), nullptr);
	return strtoull(text_.c_str(), nullptr, 10);
}

int64_t Json::i64() const
{
	return (int64_t)u64();
}

bool Json::parse(const std::string &text, Json *out, std::string *err)
{
	Parser p(text);

	*out = Json();
	return p.document(out, err);
}

bool hex_decode(const std::string &hex, std::vector<uint8_t> *out)
{
	auto nib = [](char c) -> int {
		if (c >= '0' && c <= '9')
			return c - '0';
		if (c >= 'a' && c <= 'f')
			return c - 'a' + 10;
		if (c >= 'A' && c <= 'F')
			return c - 'A' + 10;
		return -1;
	};

	out->clear();
	if (hex.size() % 2)
		return false;
	for (size_t i = 0; i < hex.size(); i += 2) {
		int hi = nib(hex[i]), lo = nib(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out->push_back((uint8_t)(hi << 4 | lo));
	}
	return true;
}

} // namespace replay
