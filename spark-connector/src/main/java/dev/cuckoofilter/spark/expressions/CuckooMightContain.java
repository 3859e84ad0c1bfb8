package dev.cuckoofilter.spark.expressions;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;
import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.hash.KeyHashing;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GetStructField;
import org.apache.spark.sql.catalyst.expressions.PlanExpression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodeBlock;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.catalyst.trees.TreePattern$;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import scala.collection.IndexedSeq;
import scala.collection.Seq;

/**
 * {@code cuckoo_might_contain(filter, key...)}: true if the key may be in the filter, false if it
 * certainly is not or is null. {@code filter} is a BINARY constant, an uncorrelated scalar subquery (both
 * evaluated once) or a {@link FilterReference}. Whole-stage code generation inlines the probe: per row it
 * hashes the key components and probes the filter, allocating nothing; the filter itself is obtained
 * once per generated class from a {@link FilterHandle}.
 *
 * <p>A probe the optimizer adds by itself ({@link #keepingRowsWhoseKeysFail}) keeps a row whose key fails to
 * evaluate (an ANSI cast of a malformed string, a user-defined function that throws, which Spark reports as a
 * checked SparkException): Spark may push it below joins and filters that kept such rows from the key's evaluation
 * in the query as written, and the query must not fail where it ran before.
 */
public final class CuckooMightContain extends JavaExpression {
  public static final String NAME = "cuckoo_might_contain";

  private final Expression filter;
  private final Seq<Expression> keys;
  private final PruneMetrics metrics;
  private final boolean keepRowsWhoseKeysFail;
  private transient FilterHandle handle;
  private transient List<Expression> components;

  /** @param keys the key columns; struct-typed keys count as their fields (composite keys) */
  public CuckooMightContain(Expression filter, Seq<Expression> keys, PruneMetrics metrics) {
    this(filter, keys, metrics, false);
  }

  /** @param keepRowsWhoseKeysFail whether a row whose key throws is kept (true) instead of failing the task */
  public CuckooMightContain(Expression filter, Seq<Expression> keys, PruneMetrics metrics,
      boolean keepRowsWhoseKeysFail) {
    this.filter = filter;
    this.keys = keys;
    this.metrics = metrics;
    this.keepRowsWhoseKeysFail = keepRowsWhoseKeysFail;
  }

  public static CuckooMightContain create(Expression filter, List<Expression> keys) {
    return new CuckooMightContain(filter, seq(keys), null);
  }

  /** A probe that also counts the rows it sees and keeps. */
  public static CuckooMightContain create(Expression filter, List<Expression> keys, PruneMetrics metrics) {
    return new CuckooMightContain(filter, seq(keys), metrics);
  }

  public Expression filterExpression() {
    return filter;
  }

  public Seq<Expression> keys() {
    return keys;
  }

  /**
   * The rows this probe counts, or null if it counts none; {@link PruneMetrics#forPartitions()} where Spark
   * evaluates the probe with partition values (a partition filter of a file scan).
   */
  public PruneMetrics metrics() {
    return metrics;
  }

  /** This probe, counting its rows in {@code metrics}. */
  public CuckooMightContain withMetrics(PruneMetrics metrics) {
    return new CuckooMightContain(filter, keys, metrics, keepRowsWhoseKeysFail);
  }

  /**
   * This probe, keeping (as a possible match) each row whose key throws when evaluated, for probes the query did
   * not ask for: the row then meets the join, or whatever dropped it before the probe was pushed past it.
   */
  public CuckooMightContain keepingRowsWhoseKeysFail() {
    return new CuckooMightContain(filter, keys, metrics, true);
  }

  /** The filter, the keys and the error handling: metrics only observe, so they take no part in equality. */
  @Override
  protected List<Object> arguments() {
    return List.of(filter, keys, keepRowsWhoseKeysFail);
  }

  @Override
  public int productArity() {
    return 4;
  }

  @Override
  public Object productElement(int n) {
    return n == 0 ? filter : n == 1 ? keys : n == 2 ? metrics : keepRowsWhoseKeysFail;
  }

  @Override
  public Seq<Expression> children() {
    List<Expression> all = new ArrayList<>();
    all.add(filter);
    all.addAll(list(keys));
    return seq(all);
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    List<Expression> c = list(newChildren);
    return new CuckooMightContain(c.get(0), seq(c.subList(1, c.size())), metrics, keepRowsWhoseKeysFail);
  }

  @Override
  public String prettyName() {
    return NAME;
  }

  @Override
  public DataType dataType() {
    return BooleanType$.MODULE$;
  }

  @Override
  public boolean nullable() {
    return filter.nullable();
  }

  @Override
  public TypeCheckResult checkInputDataTypes() {
    if (!(filter instanceof FilterReference)) {
      // An untyped NULL filter is a null filter: the answer is null, as for CAST(NULL AS BINARY).
      if (!(filter.dataType() instanceof BinaryType) && !KeyTypes.untypedNull(filter.dataType())) {
        return failure("argument 1 (filter) must be BINARY, the bytes of cuckoo_filter(...), not "
            + filter.dataType().simpleString());
      }
      // A field of an uncorrelated subquery's struct is one too: Spark's MergeScalarSubqueries computes
      // filters built from the same relation in one subquery and gives each probe its field, and a check
      // failing there would leave an unresolved probe in the optimized plan.
      Expression subquery = filter instanceof GetStructField ? ((GetStructField) filter).child() : filter;
      boolean constant = filter.foldable()
          || (subquery instanceof PlanExpression
              && !subquery.containsPattern(TreePattern$.MODULE$.OUTER_REFERENCE()));
      if (!constant) {
        return failure("argument 1 (filter) must be a constant or an uncorrelated scalar subquery such as "
            + "(SELECT cuckoo_filter(k) FROM t), not " + filter.sql());
      }
      // The bytes of a constant are checked once, by the SQL function's builder, not here: this check runs
      // again on every copy of the expression, and the optimizer may turn a subquery into a constant
      // (SELECT X'..'); failing then would leave an unresolved expression in an optimized plan. Bytes
      // that are not a filter fail when the probe first reads them, naming the function.
    }
    if (keys.isEmpty()) {
      return failure("needs at least one key argument");
    }
    List<Expression> ks = list(keys);
    for (int i = 0; i < ks.size(); i++) {
      if (!KeyTypes.supported(ks.get(i).dataType()) && !KeyTypes.untypedNull(ks.get(i).dataType())) {
        return failure("argument " + (i + 2) + " (key) has unsupported type " + ks.get(i).dataType().simpleString()
            + "; keys can be " + KeyTypes.SUPPORTED_TYPES);
      }
    }
    // A key with an untyped NULL component is null whatever the filter's key types: it never matches.
    boolean nullKey = ks.stream().anyMatch(k -> KeyTypes.untypedNull(k.dataType()));
    if (!nullKey && filter instanceof FilterReference && ((FilterReference) filter).keyFields() != null) {
      List<StructField> expected = ((FilterReference) filter).keyFields();
      List<DataType> expectedTypes = expected.stream().map(StructField::dataType).toList();
      List<DataType> actualTypes = ks.stream().map(Expression::dataType).toList();
      if (!KeyTypes.hashAlike(expectedTypes, actualTypes)) {
        List<String> probe = ks.stream().map(k -> k.sql() + " " + k.dataType().simpleString()).toList();
        List<String> filterKeys = expected.stream().map(f -> f.name() + " " + f.dataType().simpleString()).toList();
        return failure("the keys (" + String.join(", ", probe) + ") do not hash like the filter's keys ("
            + String.join(", ", filterKeys) + "): " + KeyTypes.flatCategories(actualTypes) + " vs "
            + KeyTypes.flatCategories(expectedTypes) + "; cast them to the filter's key types");
      }
      // A struct hashes its fields in order: one with the filter's fields in another order (the same data read
      // back from JSON) has the same categories, yet is another key.
      String reordered = KeyTypes.reorderedStruct(expectedTypes, actualTypes);
      if (reordered != null) {
        List<String> probe = ks.stream().map(k -> k.sql() + " " + k.dataType().simpleString()).toList();
        return failure("the keys (" + String.join(", ", probe) + ") have the fields of the filter's struct key in "
            + "another order (" + reordered + "): a struct key hashes its fields in order, so they would not be "
            + "found; list them in the filter's order");
      }
    }
    return TypeCheckResult.TypeCheckSuccess$.MODULE$;
  }

  private static TypeCheckResult failure(String message) {
    return new TypeCheckResult.TypeCheckFailure(NAME + ": " + message);
  }

  /** The filter's handle, resolved once (on the driver when compiled there). Null if the filter is null. */
  private FilterHandle handle() {
    FilterHandle h = handle;
    if (h == null) {
      if (filter instanceof FilterReference) {
        h = ((FilterReference) filter).handle();
      } else {
        byte[] bytes = (byte[]) filter.eval(null);
        if (bytes == null) {
          return null;
        }
        h = FilterHandle.ofBytes(bytes, NAME);
      }
      handle = h;
    }
    return h;
  }

  @Override
  public Object eval(InternalRow input) {
    FilterHandle h = handle();
    if (h == null) {
      return null;
    }
    CuckooFilter f = h.filter();
    long hash = f.seed();
    if (components == null) {
      components = KeyHashing.flatten(list(keys));
    }
    boolean kept;
    try {
      kept = mightContain(f, hash, input);
    } catch (Exception e) { // a user-defined function reports its failure as a SparkException, a checked one
      if (!keepRowsWhoseKeysFail) {
        throw e;
      }
      kept = true;
    }
    if (metrics != null) {
      metrics.count(kept);
    }
    return kept;
  }

  /** Whether the row's key may be in {@code f}: false for a null key. */
  private boolean mightContain(CuckooFilter f, long seed, InternalRow input) {
    long hash = seed;
    for (Expression key : components) {
      Object v = key.eval(input);
      if (v == null) {
        return false;
      }
      hash = KeyHashing.hashObject(v, key.dataType(), hash);
    }
    return f.mightContainHash(hash);
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    FilterHandle h = handle();
    StringBuilder code = new StringBuilder();
    if (h == null) {
      code.append("boolean ").append(ev.isNull()).append(" = true;\n");
      code.append("boolean ").append(ev.value()).append(" = false;\n");
      return ev.copy(block(code.toString()), ev.isNull(), ev.value());
    }
    String handleRef = ctx.addReferenceObj("cuckooHandle", h, FilterHandle.class.getName());
    String filterVar = ctx.addMutableState(CuckooFilter.class.getName(), "cuckooFilter",
        fn(v -> v + " = " + handleRef + ".filter();"), true, true);
    String hash = ctx.freshName("cuckooKeyHash");
    String nullKey = ctx.freshName("cuckooNullKey");
    code.append("long ").append(hash).append(" = ").append(filterVar).append(".seed();\n");
    code.append("boolean ").append(nullKey).append(" = false;\n");
    String keyFailed = ctx.freshName("cuckooKeyFailed");
    code.append("boolean ").append(keyFailed).append(" = false;\n");
    if (keepRowsWhoseKeysFail) {
      code.append("try {\n");
    }
    for (Expression key : KeyHashing.flatten(list(keys))) {
      ExprCode k = key.genCode(ctx);
      code.append(k.code()).append('\n');
      code.append("if (").append(k.isNull()).append(") { ").append(nullKey).append(" = true; } else { ")
          .append(KeyHashing.genFold(key.dataType(), k.value().toString(), hash)).append(" }\n");
    }
    if (keepRowsWhoseKeysFail) {
      code.append("} catch (Exception ").append(ctx.freshName("cuckooKeyError")).append(") {\n")
          .append(keyFailed).append(" = true;\n}\n");
    }
    code.append("boolean ").append(ev.isNull()).append(" = false;\n");
    code.append("boolean ").append(ev.value()).append(" = ").append(keyFailed).append(" || !").append(nullKey)
        .append(" && ").append(filterVar).append(".mightContainHash(").append(hash).append(");\n");
    if (metrics != null) {
      String metricsRef = ctx.addReferenceObj("cuckooMetrics", metrics, PruneMetrics.class.getName());
      code.append(metricsRef).append(".count(").append(ev.value()).append(");\n");
    }
    return ev.copy(block(code.toString()), ev.isNull(), ev.value());
  }

  static CodeBlock block(String code) {
    return new CodeBlock(seq(List.of(code)), seq(List.of()));
  }

  static scala.Function1<String, String> fn(java.util.function.Function<String, String> f) {
    return new scala.runtime.AbstractFunction1<String, String>() {
      @Override
      public String apply(String v) {
        return f.apply(v);
      }
    };
  }

  @Override
  public String toString() {
    return NAME + "(" + filter + ", " + String.join(", ", list(keys).stream().map(Object::toString).toList()) + ")";
  }

  @Override
  public String sql() {
    return NAME + "(" + filter.sql() + ", " + String.join(", ", list(keys).stream().map(Expression::sql).toList())
        + ")";
  }

}
