package dev.cuckoofilter.examples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.spark.store.KeyTypeNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The key columns of a stored filter as its commit record holds them, the JSON of a Spark schema
 * ({@code StructType.json()}), read and written without Spark: the tool runs without Spark's classes.
 * Types are Spark's JSON type names ({@code long}, {@code decimal(10,2)}, {@code timestamp_ntz}, ...);
 * struct-typed key columns count as their fields, as in every composite key.
 */
final class KeySchema {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** A Spark char type as its column metadata records it, lower-cased: {@code char(3)}. */
  static final Pattern CHAR = Pattern.compile("char\\((\\d+)\\)");

  private KeySchema() {}

  /**
   * A key component.
   *
   * @param name its column name (a struct field's as {@code column.field})
   * @param type Spark's JSON name of its type
   */
  record Column(String name, String type) {
    /**
     * What the type hashes as, like {@code KeyTypes.category} of the Spark type: int and long alike,
     * float and double alike, decimals by scale; timestamp and timestamp_ntz apart.
     */
    String category() {
      String category = KeyTypeNames.category(type);
      if (category == null) {
        throw new InputException("key column " + name + " has type " + type + ", which cannot be a filter key");
      }
      return category;
    }

    /** The type as Spark SQL writes it ({@code DataType.simpleString}): {@code bigint}, {@code decimal(10,2)}. */
    String sqlType() {
      return KeyTypeNames.sqlType(type);
    }

    /** Precision of a decimal type. */
    int decimalPrecision() {
      return decimal()[0];
    }

    /** Scale of a decimal type. */
    int decimalScale() {
      return decimal()[1];
    }

    private int[] decimal() {
      try {
        return KeyTypeNames.decimalPrecisionAndScale(type);
      } catch (IllegalArgumentException e) {
        throw new InputException("key column " + name + " has type " + type + ", which cannot be a filter key");
      }
    }

    @Override
    public String toString() {
      return name + " " + sqlType();
    }
  }

  /**
   * The key components of a schema's JSON, in key order.
   *
   * @throws InputException if it is not a struct schema of key types
   */
  static List<Column> columns(String schemaJson) {
    JsonNode root;
    try {
      root = JSON.readTree(schemaJson);
    } catch (JsonProcessingException e) {
      throw new InputException("the key columns are not a Spark schema: " + e.getOriginalMessage(), e);
    }
    List<Column> out = new ArrayList<>();
    flatten(root, "", out);
    for (Column c : out) {
      c.category(); // refuses types that cannot be keys
    }
    return out;
  }

  /**
   * The {@code char(n)} types of a schema's top-level key columns, as Spark records them in the column metadata
   * ({@code __CHAR_VARCHAR_TYPE_STRING}: {@code char(3)}, {@code struct<a:char(3)>}), with {@code varchar(n)} as
   * {@code string} (it hashes as such); "" for a column without a char. A char value is hashed padded to its length,
   * so filters of other char lengths hold other entries for the same key. Schemas without the metadata (written
   * without it) have none.
   */
  static List<String> charTypes(String schemaJson) {
    List<String> out = new ArrayList<>();
    try {
      for (JsonNode field : JSON.readTree(schemaJson).path("fields")) {
        String raw = field.path("metadata").path("__CHAR_VARCHAR_TYPE_STRING").asText("")
            .toLowerCase(Locale.ROOT).replaceAll("varchar\\(\\d+\\)", "string");
        out.add(raw.contains("char(") ? raw : "");
      }
    } catch (JsonProcessingException e) {
      throw new InputException("the key columns are not a Spark schema: " + e.getOriginalMessage(), e);
    }
    return out;
  }

  /**
   * For each key component of {@link #columns}, in order, the length of a {@code char(n)} column or struct field (at
   * any depth), else -1. Spark keeps the char types in the column metadata ({@code __CHAR_VARCHAR_TYPE_STRING}:
   * {@code char(3)}, or the struct's whole type, {@code struct<n:int,c:char(3)>}) and stores and hashes a char value
   * padded to n, in a struct as at the top level. A struct whose recorded type does not fit its schema counts as
   * having no char fields.
   */
  static List<Integer> charLengths(String schemaJson) {
    List<Integer> out = new ArrayList<>();
    try {
      for (JsonNode field : JSON.readTree(schemaJson).path("fields")) {
        String raw = field.path("metadata").path("__CHAR_VARCHAR_TYPE_STRING").asText("");
        if (!field.path("type").isTextual()) { // a struct: one component per field at any depth
          List<Column> components = new ArrayList<>();
          flatten(field.path("type"), "", components);
          List<Integer> lengths = new ArrayList<>();
          int[] at = {0};
          if (raw.isEmpty() || !structCharLengths(field.path("type"), raw, at, lengths) || at[0] != raw.length()
              || lengths.size() != components.size()) {
            lengths = new ArrayList<>(Collections.nCopies(components.size(), -1));
          }
          out.addAll(lengths);
          continue;
        }
        out.add(charLength(raw));
      }
    } catch (JsonProcessingException e) {
      throw new InputException("the key columns are not a Spark schema: " + e.getOriginalMessage(), e);
    }
    return out;
  }

  private static int charLength(String rawType) {
    Matcher m = CHAR.matcher(rawType.trim().toLowerCase(Locale.ROOT));
    return m.matches() ? Integer.parseInt(m.group(1)) : -1;
  }

  /**
   * Reads Spark's catalog string of a struct type ({@code struct<n:int,c:char(3)>}, field names as they are or in
   * backquotes) from {@code at[0]}, following the struct's JSON schema, adding the char length (or -1) of each field at
   * any depth; false if the text does not fit the schema.
   */
  private static boolean structCharLengths(JsonNode struct, String raw, int[] at, List<Integer> out) {
    if (!raw.regionMatches(true, at[0], "struct<", 0, 7)) {
      return false;
    }
    at[0] += 7;
    boolean first = true;
    for (JsonNode field : struct.path("fields")) {
      if (!first && !skip(raw, at, ",")) {
        return false;
      }
      first = false;
      String name = field.path("name").asText();
      if (!skip(raw, at, name + ":") && !skip(raw, at, "`" + name.replace("`", "``") + "`:")) {
        return false;
      }
      JsonNode type = field.path("type");
      if (!type.isTextual()) {
        if (!structCharLengths(type, raw, at, out)) {
          return false;
        }
        continue;
      }
      int end = at[0];
      int depth = 0;
      while (end < raw.length() && (depth > 0 || (raw.charAt(end) != ',' && raw.charAt(end) != '>'))) {
        depth += raw.charAt(end) == '(' ? 1 : raw.charAt(end) == ')' ? -1 : 0;
        end++;
      }
      out.add(charLength(raw.substring(at[0], end)));
      at[0] = end;
    }
    return skip(raw, at, ">");
  }

  private static boolean skip(String raw, int[] at, String expected) {
    if (!raw.startsWith(expected, at[0])) {
      return false;
    }
    at[0] += expected.length();
    return true;
  }

  private static void flatten(JsonNode struct, String prefix, List<Column> out) {
    JsonNode fields = struct.get("fields");
    if (!"struct".equals(struct.path("type").asText()) || fields == null || !fields.isArray()) {
      throw new InputException("the key columns are not a Spark struct schema: " + struct);
    }
    for (JsonNode field : fields) {
      String name = prefix + field.path("name").asText();
      JsonNode type = field.get("type");
      if (type == null) {
        throw new InputException("key column " + name + " has no type in the schema " + struct);
      } else if (type.isTextual()) {
        out.add(new Column(name, type.asText()));
      } else if ("struct".equals(type.path("type").asText())) {
        flatten(type, name + ".", out);
      } else {
        throw new InputException("key column " + name + " has type " + type + ", which cannot be a filter key");
      }
    }
  }

  /** The schema JSON of top-level key columns, as Spark writes it for nullable columns without metadata. */
  static String json(List<Column> columns) {
    return json(columns, Map.of());
  }

  /**
   * {@link #json(List)} with the char types of some columns ({@code k -> char(3)}) in their metadata, as Spark
   * records a CHAR(n) column.
   */
  static String json(List<Column> columns, Map<String, String> charTypes) {
    ObjectNode root = JSON.createObjectNode();
    root.put("type", "struct");
    ArrayNode fields = root.putArray("fields");
    for (Column c : columns) {
      ObjectNode f = fields.addObject();
      f.put("name", c.name());
      f.put("type", c.type());
      f.put("nullable", true);
      ObjectNode metadata = f.putObject("metadata");
      if (charTypes.containsKey(c.name()) && c.type().equals("string")) {
        metadata.put("__CHAR_VARCHAR_TYPE_STRING", charTypes.get(c.name()));
      }
    }
    return root.toString();
  }

  /** {@code name type, ...} with Spark SQL's type names. */
  static String describe(List<Column> columns) {
    List<String> parts = new ArrayList<>();
    for (Column c : columns) {
      parts.add(c.toString());
    }
    return String.join(", ", parts);
  }
}
