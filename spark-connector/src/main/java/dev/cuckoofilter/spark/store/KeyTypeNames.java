package dev.cuckoofilter.spark.store;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Key types by the names Spark gives them in schema JSON ({@code StructType.json()}: {@code long},
 * {@code decimal(10,2)}, {@code timestamp_ntz}, ...), without Spark's classes: commit records hold key
 * columns as such JSON, and the store and the {@code cuckoo} tool run without Spark. The Spark-free
 * counterpart of {@code dev.cuckoofilter.spark.hash.KeyTypes}; {@code KeyColumnsCheckTest} checks that the
 * two agree for every key type.
 */
public final class KeyTypeNames {
  private static final Pattern DECIMAL = Pattern.compile("decimal\\(\\s*(\\d+)\\s*,\\s*(-?\\d+)\\s*\\)");

  private KeyTypeNames() {}

  /**
   * What values of a key type hash as, like {@code KeyTypes.category}: the integral types alike, float and
   * double alike, decimals by scale, timestamp and timestamp_ntz apart.
   *
   * @return the category, or null if the name is not a (non-struct) key type
   */
  public static String category(String jsonName) {
    switch (jsonName) {
      case "byte":
      case "short":
      case "integer":
      case "long":
        return "integer";
      case "float":
      case "double":
        return "floating";
      case "boolean":
      case "date":
      case "timestamp":
      case "timestamp_ntz":
      case "string":
      case "binary":
        return jsonName;
      default:
        Matcher m = DECIMAL.matcher(jsonName);
        return m.matches() ? "decimal(scale " + Integer.parseInt(m.group(2)) + ")" : null;
    }
  }

  /** The type as Spark SQL writes it ({@code DataType.simpleString}): {@code bigint}, {@code decimal(10,2)}. */
  public static String sqlType(String jsonName) {
    switch (jsonName) {
      case "byte":
        return "tinyint";
      case "short":
        return "smallint";
      case "integer":
        return "int";
      case "long":
        return "bigint";
      default:
        return jsonName.replace(" ", "");
    }
  }

  /**
   * The precision and the scale of a decimal type.
   *
   * @throws IllegalArgumentException if the name is not a decimal type's
   */
  public static int[] decimalPrecisionAndScale(String jsonName) {
    Matcher m = DECIMAL.matcher(jsonName);
    if (!m.matches()) {
      throw new IllegalArgumentException(jsonName + " is not a decimal type");
    }
    return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
  }
}
