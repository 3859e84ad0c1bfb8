package dev.cuckoofilter.spark.hash;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Which Spark types can be filter keys, and which of them hash alike ({@code docs/HASHING.md}, section 5).
 *
 * <p>Only Spark's type classes are used here, never Catalyst expressions: deciding what a key column may
 * be is separate from hashing its values ({@link KeyHashing}, which works on Catalyst's value
 * representations), and code that only checks or compares key types (metadata validation, probe checks)
 * does not depend on the hashing code.
 */
public final class KeyTypes {
  /** What {@link #supported} accepts, for error messages: "keys can be " + this. */
  public static final String SUPPORTED_TYPES =
      "integral, boolean, float, double, decimal, string, binary, date, timestamp, timestamp_ntz or structs of these";

  private KeyTypes() {}

  /** True if values of this type can be keys (structs: if all their fields can). */
  public static boolean supported(DataType type) {
    if (type instanceof StructType) {
      for (StructField field : ((StructType) type).fields()) {
        if (!supported(field.dataType())) {
          return false;
        }
      }
      return ((StructType) type).fields().length > 0;
    }
    return integral(type) || type instanceof BooleanType || type instanceof FloatType
        || type instanceof DoubleType || type instanceof DecimalType || type instanceof StringType
        || type instanceof BinaryType;
  }

  /**
   * True for the type of an untyped {@code NULL} (SQL {@code cuckoo_filter(NULL)},
   * {@code cuckoo_might_contain(f, NULL)}): a key of this type is always null, so it is left out of
   * filters and never matches, as a typed null key; the functions accept it as such rather than refusing
   * its type. Not a key type otherwise ({@link #supported}): a column of it cannot be stored or pruned by.
   */
  public static boolean untypedNull(DataType type) {
    return type instanceof NullType;
  }

  /**
   * What a key type hashes as: types in one category hash the same values alike (int and long, float and
   * double), so a filter built on one can be probed with the other; other pairs are refused. timestamp
   * and timestamp_ntz are different categories: both hash their microseconds, but Spark compares them
   * after converting one in the session time zone, so equal values have other microseconds (unless the
   * zone is UTC), and a filter of one would miss keys of the other.
   */
  public static String category(DataType type) {
    if (type instanceof StructType) {
      StringBuilder sb = new StringBuilder("struct<");
      StructField[] fields = ((StructType) type).fields();
      for (int i = 0; i < fields.length; i++) {
        sb.append(i == 0 ? "" : ",").append(category(fields[i].dataType()));
      }
      return sb.append('>').toString();
    }
    if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType) {
      return "integer";
    }
    if (type instanceof TimestampType) {
      return "timestamp";
    }
    if (type instanceof TimestampNTZType) {
      return "timestamp_ntz";
    }
    if (type instanceof FloatType || type instanceof DoubleType) {
      return "floating";
    }
    if (type instanceof DecimalType) {
      return "decimal(scale " + ((DecimalType) type).scale() + ")";
    }
    return type.typeName();
  }

  /**
   * What a composite key hashes as, for probes: the categories of its components, structs expanded into
   * their fields at any depth (as {@link KeyHashing#flatten} hashes them), so {@code (a, b)},
   * {@code struct(a, b)} and {@code struct(struct(a), b)} are the same key.
   */
  public static String flatCategories(List<DataType> types) {
    List<String> parts = new ArrayList<>();
    for (DataType t : types) {
      addFlat(t, parts);
    }
    return String.join(",", parts);
  }

  private static void addFlat(DataType type, List<String> parts) {
    if (type instanceof StructType) {
      for (StructField field : ((StructType) type).fields()) {
        addFlat(field.dataType(), parts);
      }
    } else {
      parts.add(category(type));
    }
  }

  /** True if keys of these types hash alike: a filter of keys of one can be probed with keys of the other. */
  public static boolean hashAlike(List<DataType> a, List<DataType> b) {
    return flatCategories(a).equals(flatCategories(b));
  }

  /**
   * The first struct of {@code actual} (at any depth, by position) whose fields are those of the struct at its place
   * in {@code expected} by name (case aside) but in another order, as {@code "actual vs expected"}; null if none. A
   * struct key hashes its fields in order, so such a struct (the same data read back from JSON, whose schema
   * inference sorts struct fields by name) is another key, whatever its categories.
   */
  public static String reorderedStruct(List<DataType> expected, List<DataType> actual) {
    if (expected.size() != actual.size()) {
      return null;
    }
    for (int i = 0; i < expected.size(); i++) {
      if (expected.get(i) instanceof StructType e && actual.get(i) instanceof StructType a) {
        StructField[] ef = e.fields();
        StructField[] af = a.fields();
        if (ef.length != af.length) {
          continue;
        }
        java.util.Set<String> en = new java.util.HashSet<>();
        java.util.Set<String> an = new java.util.HashSet<>();
        boolean sameOrder = true;
        for (int j = 0; j < ef.length; j++) {
          en.add(ef[j].name().toLowerCase(java.util.Locale.ROOT));
          an.add(af[j].name().toLowerCase(java.util.Locale.ROOT));
          sameOrder &= ef[j].name().equalsIgnoreCase(af[j].name());
        }
        if (!sameOrder && en.size() == ef.length && en.equals(an)) {
          return a.simpleString() + " vs " + e.simpleString();
        }
        List<DataType> eTypes = new ArrayList<>();
        List<DataType> aTypes = new ArrayList<>();
        for (int j = 0; j < ef.length; j++) {
          eTypes.add(ef[j].dataType());
          aTypes.add(af[j].dataType());
        }
        String nested = reorderedStruct(eTypes, aTypes);
        if (nested != null) {
          return nested;
        }
      }
    }
    return null;
  }

  /** Types whose values are integers (dates as days, timestamps as microseconds). */
  static boolean integral(DataType type) {
    return type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType
        || type instanceof LongType || type instanceof DateType || type instanceof TimestampType
        || type instanceof TimestampNTZType;
  }
}
