package dev.cuckoofilter.spark.hash;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.CreateNamedStruct;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal$;
import org.apache.spark.sql.catalyst.expressions.StringRPad;
import org.apache.spark.sql.catalyst.util.CharVarcharUtils$;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.VarcharType;
import scala.Option;

/**
 * CHAR keys of different lengths, at the top level or as fields of struct keys (at any depth). Spark compares two
 * CHAR values of different lengths with the shorter padded with spaces ({@code ApplyCharTypePadding}: CHAR(3)
 * {@code 'ab '} equals CHAR(5) {@code 'ab   '}), the CHAR fields of two structs alike, so a filter must hash such
 * keys padded to keep the matches of a join. Spark keeps a column's CHAR types in its metadata ({@link #rawType}).
 */
public final class CharKeys {
  private CharKeys() {}

  /**
   * The type of a column with the CHAR types Spark keeps in its metadata ({@code struct<n: int, c: char(3)>} for a
   * column Spark types {@code struct<n: int, c: string>}), or its type if it has none.
   */
  public static DataType rawType(StructField column) {
    Option<DataType> raw = CharVarcharUtils$.MODULE$.getRawType(column.metadata());
    return raw.isDefined() ? raw.get() : column.dataType();
  }

  /**
   * {@code key} (resolved, of raw type {@code own}) with each CHAR value shorter than the CHAR at its place in
   * {@code other} padded with spaces to that length, as Spark's comparison of the two pads it; null if none is
   * shorter. A null struct stays null.
   */
  public static Expression padShorter(Expression key, DataType own, DataType other) {
    if (own instanceof CharType o && other instanceof CharType t) {
      return t.length() > o.length()
          ? new StringRPad(key, Literal$.MODULE$.apply(t.length()), Literal$.MODULE$.apply(" "))
          : null;
    }
    if (!(own instanceof StructType o && other instanceof StructType t && key.dataType() instanceof StructType type)
        || o.fields().length != t.fields().length || type.fields().length != o.fields().length) {
      return null;
    }
    List<Expression> parts = new ArrayList<>();
    boolean changed = false;
    for (int i = 0; i < o.fields().length; i++) {
      String name = type.fields()[i].name();
      Expression field = new GetStructField(key, i, Option.apply(name));
      Expression padded = padShorter(field, o.fields()[i].dataType(), t.fields()[i].dataType());
      changed |= padded != null;
      parts.add(Literal$.MODULE$.apply(name));
      parts.add(padded != null ? padded : field);
    }
    if (!changed) {
      return null;
    }
    Expression struct = new CreateNamedStruct(seq(parts));
    return new If(new IsNull(key), Literal$.MODULE$.create(null, struct.dataType()), struct);
  }

  /**
   * {@code key} (of raw type {@code given}) with each CHAR value whose place in {@code target} is a CHAR of another
   * length brought to that length: trailing spaces dropped, then padded with spaces (a longer value, which cannot
   * equal any of that length, is cut: at worst a false positive); null if none differs. A null struct stays null.
   *
   * @param strings whether STRING and VARCHAR values at the place of a CHAR are brought to its length too, as Spark
   *     stores them in a CHAR column (a join compares them unpadded)
   */
  public static Column toLengths(Column key, DataType given, DataType target, boolean strings) {
    if (target instanceof CharType t) {
      boolean bring = given instanceof CharType g ? g.length() != t.length()
          : strings && (given instanceof StringType || given instanceof VarcharType);
      return bring ? functions.rpad(functions.rtrim(key), t.length(), " ") : null;
    }
    if (!(given instanceof StructType g && target instanceof StructType t) || g.fields().length != t.fields().length) {
      return null;
    }
    Column[] fields = new Column[g.fields().length];
    boolean changed = false;
    for (int i = 0; i < fields.length; i++) {
      String name = g.fields()[i].name();
      Column field = key.getField(name);
      Column brought = toLengths(field, g.fields()[i].dataType(), t.fields()[i].dataType(), strings);
      changed |= brought != null;
      fields[i] = (brought != null ? brought : field).as(name);
    }
    if (!changed) {
      return null;
    }
    return functions.when(key.isNull(), functions.lit(null)).otherwise(functions.struct(fields));
  }
}
