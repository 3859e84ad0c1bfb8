package dev.cuckoofilter.spark.prune;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.hash.KeyTypes;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Join keys as a filter must see them to keep every match of a join. Spark compares structs field by
 * field with null fields equal ({@code struct(1, null) = struct(1, null)} is true), while a filter leaves
 * out, and never matches, a key with a null component: probed as a struct, such keys would lose their
 * matches.
 */
public final class JoinKeys {
  private static final Method LITERAL_DEFAULT;

  static {
    try {
      LITERAL_DEFAULT = Literal$.class.getMethod("default", DataType.class); // a Java keyword
    } catch (NoSuchMethodException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private JoinKeys() {}

  /**
   * The keys with struct-typed keys replaced by their fields (recursively), each field as the pair
   * {@code coalesce(field, default), isnull(field)}, which is how Spark's {@code ExtractEquiJoinKeys} makes
   * {@code <=>} keys null-free. Every field gets the pair, nullable or not: the two sides of a join may
   * differ in their fields' nullability, and their keys must still hash alike. A null struct becomes its
   * fields' defaults: at worst a false positive, which the join itself then drops. Apply it to both sides'
   * keys.
   */
  public static List<Expression> structFieldsNullSafe(List<Expression> keys) {
    List<Expression> out = new ArrayList<>();
    for (Expression k : keys) {
      if (k.dataType() instanceof StructType && KeyTypes.supported(k.dataType())) {
        addFieldsNullSafe(k, out);
      } else {
        out.add(k);
      }
    }
    return out;
  }

  private static void addFieldsNullSafe(Expression struct, List<Expression> out) {
    StructField[] fields = ((StructType) struct.dataType()).fields();
    for (int i = 0; i < fields.length; i++) {
      Expression field = new GetStructField(struct, i, Option.apply(fields[i].name()));
      if (field.dataType() instanceof StructType) {
        addFieldsNullSafe(field, out);
      } else {
        List<Expression> orDefault = List.of(field, defaultLiteral(field.dataType()));
        out.add(new Coalesce(seq(orDefault)));
        out.add(new IsNull(field));
      }
    }
  }

  private static Expression defaultLiteral(DataType type) {
    try {
      return (Expression) LITERAL_DEFAULT.invoke(Literal$.MODULE$, type);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Literal.default(" + type.simpleString() + ")", e);
    }
  }
}
