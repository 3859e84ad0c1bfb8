package dev.cuckoofilter.spark.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares the key columns of two versions as their commit records hold them (Spark schema JSON,
 * {@link VersionMetadata#keyColumnsJson()}), without Spark: publishing runs without Spark too. Two key
 * column lists are the same key when they have the same column names (case aside, as Spark resolves them by
 * default and probes and updates read them) in the same order and each
 * column's type hashes alike ({@code KeyTypes.category}: int and long alike, float and double alike,
 * decimals by scale, timestamp and timestamp_ntz apart, structs field by field, their fields named alike in the
 * same order, case aside). Nullability and column metadata are not part of the key.
 */
final class KeyColumnsJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeyColumnsJson() {}

  /** A top-level key column: its name and its type's JSON. */
  record Column(String name, JsonNode type) {
    String category() {
      return KeyColumnsJson.category(type);
    }

    @Override
    public String toString() {
      return name + " " + sqlType(type);
    }
  }

  /** The top-level columns of a (validated, see {@link VersionMetadata}) key schema JSON. */
  static List<Column> columns(String keyColumnsJson) {
    JsonNode root;
    try {
      root = JSON.readTree(keyColumnsJson);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("key columns are not valid JSON: " + e.getOriginalMessage(), e);
    }
    List<Column> out = new ArrayList<>();
    for (JsonNode f : root.path("fields")) {
      out.add(new Column(f.path("name").asText(), f.path("type")));
    }
    return out;
  }

  /**
   * What differs between two key column lists, one phrase per difference, or an empty list if they are
   * the same key.
   */
  static List<String> differences(List<Column> latest, List<Column> published) {
    List<String> out = new ArrayList<>();
    int n = Math.max(latest.size(), published.size());
    for (int i = 0; i < n; i++) {
      Column was = i < latest.size() ? latest.get(i) : null;
      Column now = i < published.size() ? published.get(i) : null;
      if (was == null) {
        out.add("key column " + (i + 1) + " " + now + " is new");
      } else if (now == null) {
        out.add("key column " + (i + 1) + " " + was + " is missing");
      } else if (!was.name().equalsIgnoreCase(now.name())) { // as Spark resolves names (and probes and updates)
        out.add("key column " + (i + 1) + " is " + now + " instead of " + was);
      } else if (!was.category().equals(now.category())) {
        out.add("key column " + now.name() + " is " + sqlType(now.type()) + " instead of " + sqlType(was.type())
            + ", which does not hash alike");
      } else if (!fieldNames(was.type()).equalsIgnoreCase(fieldNames(now.type()))) {
        // A struct hashes its fields in order, and updates read them by name: struct<city, zip> of the same values
        // hashes other keys than struct<zip, city>.
        out.add("key column " + now.name() + " is " + sqlType(now.type()) + " instead of " + sqlType(was.type())
            + ": a struct key hashes its fields in order, and these are named otherwise or come in another order");
      }
    }
    return out;
  }

  /** The field names of a struct type, at every depth, in order ({@code <zip,city>}); empty for other types. */
  static String fieldNames(JsonNode type) {
    if (!type.isObject() || !"struct".equals(type.path("type").asText())) {
      return "";
    }
    StringBuilder sb = new StringBuilder("<");
    boolean first = true;
    for (JsonNode f : type.path("fields")) {
      sb.append(first ? "" : ",").append(f.path("name").asText()).append(fieldNames(f.path("type")));
      first = false;
    }
    return sb.append('>').toString();
  }

  /** {@code name type, ...} with Spark SQL's type names. */
  static String describe(List<Column> columns) {
    List<String> parts = new ArrayList<>();
    for (Column c : columns) {
      parts.add(c.toString());
    }
    return String.join(", ", parts);
  }

  /** The JSON form of {@code KeyTypes.category}: what a type hashes as. */
  static String category(JsonNode type) {
    if (type.isObject() && "struct".equals(type.path("type").asText())) {
      StringBuilder sb = new StringBuilder("struct<");
      boolean first = true;
      for (JsonNode f : type.path("fields")) {
        sb.append(first ? "" : ",").append(category(f.path("type")));
        first = false;
      }
      return sb.append('>').toString();
    }
    if (!type.isTextual()) {
      return type.toString(); // not a key type: only equal JSON is alike
    }
    String category = KeyTypeNames.category(type.asText());
    return category != null ? category : type.asText(); // not a key type: only equal names are alike
  }

  /** The type as Spark SQL writes it ({@code DataType.simpleString}): {@code bigint}, {@code struct<a:int>}. */
  static String sqlType(JsonNode type) {
    if (type.isObject() && "struct".equals(type.path("type").asText())) {
      List<String> parts = new ArrayList<>();
      for (JsonNode f : type.path("fields")) {
        parts.add(f.path("name").asText() + ":" + sqlType(f.path("type")));
      }
      return "struct<" + String.join(",", parts) + ">";
    }
    if (!type.isTextual()) {
      return type.toString();
    }
    return KeyTypeNames.sqlType(type.asText());
  }
}
