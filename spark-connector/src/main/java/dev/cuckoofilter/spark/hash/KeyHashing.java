package dev.cuckoofilter.spark.hash;

import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.XXH64;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
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
import org.apache.spark.unsafe.types.UTF8String;
import scala.Option;

/**
 * Spark values under the filter-core hash contract ({@code docs/HASHING.md}, "Spark types"), so a
 * filter built in Spark answers exactly like {@code CuckooFilter.mightContain} in plain Java for the
 * same logical key:
 *
 * <ul>
 *   <li>byte, short, int, long, date (days since 1970-01-01), timestamp and timestamp_ntz
 *       (microseconds since the epoch): {@code hashLong} of the value as a 64-bit integer;
 *   <li>boolean: {@code hashLong} of 1 or 0;
 *   <li>float and double: {@code hashLong} of the IEEE bits of the value as a double, with -0.0 as 0.0
 *       and every NaN as the canonical NaN (as Spark normalizes join keys);
 *   <li>decimal(p, s): {@code hashLong} of the unscaled value when it fits in 64 bits, else XXH64 of
 *       its minimal big-endian two's-complement bytes ({@code BigInteger.toByteArray()}); equal values
 *       of the same scale hash alike whatever the precision;
 *   <li>string: XXH64 of its UTF-8 bytes; binary: XXH64 of the bytes;
 *   <li>struct: its fields in order, as a composite key. Composite keys chain the seed.
 * </ul>
 *
 * A key with any null component is null: it is left out of filters and never matches. Which types can be
 * keys, and which hash alike, is {@link KeyTypes}.
 */
public final class KeyHashing {
  private KeyHashing() {}

  // ------------------------------------------------------ called by generated code

  public static long hashLong(long value, long seed) {
    return CuckooHash.hashLong(value, seed);
  }

  public static long hashBoolean(boolean value, long seed) {
    return CuckooHash.hashLong(value ? 1 : 0, seed);
  }

  public static long hashDouble(double value, long seed) {
    double v = value == 0.0 ? 0.0 : value; // -0.0 == 0.0
    return CuckooHash.hashLong(Double.doubleToLongBits(v), seed); // doubleToLongBits canonicalizes NaN
  }

  public static long hashUtf8(UTF8String value, long seed) {
    return XXH64.hashUnsafeBytes(value.getBaseObject(), value.getBaseOffset(), value.numBytes(), seed);
  }

  public static long hashBinary(byte[] value, long seed) {
    return CuckooHash.hashBytes(value, seed);
  }

  public static long hashDecimal(Decimal value, int precision, long seed) {
    if (precision <= Decimal.MAX_LONG_DIGITS()) {
      return CuckooHash.hashLong(value.toUnscaledLong(), seed);
    }
    java.math.BigInteger unscaled = value.toJavaBigDecimal().unscaledValue();
    return unscaled.bitLength() < 64
        ? CuckooHash.hashLong(unscaled.longValue(), seed)
        : CuckooHash.hashBytes(unscaled.toByteArray(), seed);
  }

  // ---------------------------------------------------------------------- keys

  /**
   * The key's components: struct-typed keys are expanded into their fields (recursively), so
   * {@code struct(a, b)} and the columns {@code a, b} are the same composite key.
   */
  public static List<Expression> flatten(List<Expression> keys) {
    List<Expression> out = new ArrayList<>();
    for (Expression key : keys) {
      flattenInto(key, out);
    }
    return out;
  }

  private static void flattenInto(Expression key, List<Expression> out) {
    if (key.dataType() instanceof StructType) {
      StructField[] fields = ((StructType) key.dataType()).fields();
      for (int i = 0; i < fields.length; i++) {
        flattenInto(new GetStructField(key, i, Option.apply(fields[i].name())), out);
      }
    } else {
      out.add(key);
    }
  }

  // ------------------------------------------------------------- interpreted

  /** Folds one non-null key component, as Catalyst represents it (boxed), into the hash. */
  public static long hashObject(Object value, DataType type, long seed) {
    if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType
        || type instanceof IntegerType || type instanceof DateType || type instanceof ShortType
        || type instanceof ByteType) {
      return hashLong(((Number) value).longValue(), seed);
    }
    if (type instanceof BooleanType) {
      return hashBoolean((Boolean) value, seed);
    }
    if (type instanceof DoubleType || type instanceof FloatType) {
      return hashDouble(((Number) value).doubleValue(), seed);
    }
    if (type instanceof StringType) {
      return hashUtf8((UTF8String) value, seed);
    }
    if (type instanceof BinaryType) {
      return hashBinary((byte[]) value, seed);
    }
    if (type instanceof DecimalType) {
      return hashDecimal((Decimal) value, ((DecimalType) type).precision(), seed);
    }
    throw new IllegalArgumentException("unsupported key type " + type.simpleString());
  }

  // ---------------------------------------------------------------- codegen

  /**
   * Java code that folds one evaluated key component into the running hash {@code hashVar}.
   *
   * @param value the Java expression holding the component's value (not null)
   */
  public static String genFold(DataType type, String value, String hashVar) {
    String k = KeyHashing.class.getName();
    if (type instanceof NullType) {
      return ""; // an untyped NULL (KeyTypes.untypedNull) is always null: nothing to fold
    }
    if (KeyTypes.integral(type)) {
      return hashVar + " = " + k + ".hashLong((long) " + value + ", " + hashVar + ");";
    }
    if (type instanceof BooleanType) {
      return hashVar + " = " + k + ".hashBoolean(" + value + ", " + hashVar + ");";
    }
    if (type instanceof FloatType || type instanceof DoubleType) {
      return hashVar + " = " + k + ".hashDouble((double) " + value + ", " + hashVar + ");";
    }
    if (type instanceof StringType) {
      return hashVar + " = " + k + ".hashUtf8(" + value + ", " + hashVar + ");";
    }
    if (type instanceof BinaryType) {
      return hashVar + " = " + k + ".hashBinary(" + value + ", " + hashVar + ");";
    }
    if (type instanceof DecimalType) {
      return hashVar + " = " + k + ".hashDecimal(" + value + ", " + ((DecimalType) type).precision() + ", "
          + hashVar + ");";
    }
    throw new IllegalArgumentException("unsupported key type " + type.simpleString());
  }
}
