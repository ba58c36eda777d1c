/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A small JSON reader for the golden-vector replay (JSON Lines, one record per line).
 * Numbers keep their text as well as a double so 64-bit values survive; the vectors
 * write 64-bit identifiers as "0x..." strings, read with Json::u64().
 */
#ifndef MLX5_REPLAY_JSON_H
#define MLX5_REPLAY_JSON_H

#include <stdint.h>

#include <map>
#include <string>
#include <vector>

namespace replay {

/** One JSON value. */
class Json {
public:
	enum class Type {
		Null,
		Bool,
		Number,
		String,
		Array,
		Object
	};

	Json() = default;

	Type type() const { return type_; }
	bool is_null() const { return type_ == Type::Null; }
	bool is_object() const { return type_ == Type::Object; }
	bool is_array() const { return type_ == Type::Array; }
	bool is_string() const { return type_ == Type::String; }

	/** Member of an object; a Null value when absent or not an object. */
	const Json &operator[](const std::string &key) const;
	/** Element of an array; a Null value when out of range. */
	const Json &operator[](size_t i) const;
	bool has(const std::string &key) const;
	size_t size() const { return type_ == Type::Array ? items_.size() : members_.size(); }
	const std::vector<Json> &items() const { return items_; }

	const std::string &str() const { return text_; }
	bool boolean() const { return bool_; }
	/** A number, or a "0x..." hex string / decimal string, as uint64. */
	uint64_t u64() const;
	int64_t i64() const;

	/** Parse @p text; on error returns false and sets @p err. */
	static bool parse(const std::string &text, Json *out, std::string *err);

private:
	friend class Parser;
	Type type_ = Type::Null;
	bool bool_ = false;
	std::string text_; /* string contents, or a number's literal */
	std::vector<Json> items_;
	std::map<std::string, Json> members_;
};

/** Decode lower-case hex into bytes; false on odd length or a bad digit. */
bool hex_decode(const std::string &hex, std::vector<uint8_t> *out);

} // namespace replay

#endif /* MLX5_REPLAY_JSON_H */
