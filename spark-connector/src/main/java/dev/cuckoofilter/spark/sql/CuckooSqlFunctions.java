package dev.cuckoofilter.spark.sql;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.expressions.CuckooFilterInfo;
import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import dev.cuckoofilter.spark.expressions.FilterHandle;
import dev.cuckoofilter.spark.hash.KeyTypes;
import java.util.List;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.ScalarSubquery;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Union;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.ByteType;
import scala.Option;
import scala.Tuple3;
import scala.collection.Seq;
import scala.collection.immutable.Map$;

/**
 * The SQL functions: {@code cuckoo_filter(key [, expectedItems [, fpp]])} (aggregate, BINARY),
 * {@code cuckoo_might_contain(filter, key)} (BOOLEAN) and {@code cuckoo_filter_info(filter)} (STRUCT).
 * Registered by {@code CuckooFilterExtensions}, or on an existing session with {@link #register}.
 */
public final class CuckooSqlFunctions {
  private CuckooSqlFunctions() {}

  /** The functions with their builders, for {@code SparkSessionExtensions.injectFunction}. */
  public static List<Tuple3<FunctionIdentifier, ExpressionInfo, scala.Function1<Seq<Expression>, Expression>>> all() {
    return List.of(
        function(CuckooFilterAggregate.NAME, CuckooFilterAggregate.class,
            "_FUNC_(key [, expectedItems [, fpp]]) - Builds a cuckoo filter of the distinct non-null values of key "
                + "(a column or a struct of columns) and returns its bytes. Sized for expectedItems distinct keys, "
                + "or for the exact distinct count when omitted; fpp (default 0.01) is the false-positive rate.",
            CuckooSqlFunctions::buildAggregate),
        function(CuckooMightContain.NAME, CuckooMightContain.class,
            "_FUNC_(filter, key) - True if key may be in the filter (bytes of cuckoo_filter, a constant or an "
                + "uncorrelated scalar subquery), false if it certainly is not or is null.",
            CuckooSqlFunctions::buildMightContain),
        function(CuckooFilterInfo.NAME, CuckooFilterInfo.class,
            "_FUNC_(filter) - The parameters and statistics of a serialized cuckoo filter.",
            CuckooSqlFunctions::buildInfo));
  }

  /** Registers the functions with an extensions object (used by CuckooFilterExtensions). */
  public static void register(SparkSessionExtensions extensions) {
    for (var f : all()) {
      extensions.injectFunction(f);
    }
  }

  /** Registers the functions in an existing session (temporary functions of that session). */
  public static void register(SparkSession session) {
    for (var f : all()) {
      session.sessionState().functionRegistry().registerFunction(f._1(), f._2(), f._3());
    }
  }

  private static Tuple3<FunctionIdentifier, ExpressionInfo, scala.Function1<Seq<Expression>, Expression>> function(
      String name, Class<?> implementation, String usage, java.util.function.Function<List<Expression>, Expression> b) {
    scala.Function1<Seq<Expression>, Expression> builder = new scala.runtime.AbstractFunction1<>() {
      @Override
      public Expression apply(Seq<Expression> args) {
        return b.apply(list(args));
      }
    };
    return new Tuple3<>(FunctionIdentifier.apply(name), new ExpressionInfo(implementation.getName(), null, name,
        usage, ""), builder);
  }

  private static Expression buildAggregate(List<Expression> args) {
    String f = CuckooFilterAggregate.NAME;
    if (args.isEmpty() || args.size() > 3) {
      throw error(f + " takes 1 to 3 arguments (key [, expectedItems [, fpp]]), got " + args.size());
    }
    long expected = 0;
    if (args.size() >= 2 && !isNullLiteral(args.get(1))) {
      if (!args.get(1).foldable()) {
        // The likely mistake: the columns of a composite key given as separate arguments, as filterOf takes them.
        throw error(f + ": argument 2 (expectedItems) must be an integer constant, got " + args.get(1).sql()
            + ", not a constant; a key of several columns is one struct: " + f + "(struct(" + args.get(0).sql() + ", "
            + args.get(1).sql() + ", ...))");
      }
      expected = constantLong(args.get(1), f, 2, "expectedItems");
      if (expected <= 0) {
        throw error(f + ": argument 2 (expectedItems) must be positive, got " + expected);
      }
    }
    double fpp = CuckooFilterAggregate.DEFAULT_FPP;
    if (args.size() == 3) {
      fpp = constantDouble(args.get(2), f, 3, "fpp");
      if (!(fpp > 0 && fpp < 1)) {
        throw error(f + ": argument 3 (fpp) must be in (0, 1), got " + fpp);
      }
    }
    // Rates and sizes no filter can have fail here, not in the tasks that would build it.
    try {
      if (expected > 0) {
        CuckooFilterAggregate.checkFpp(fpp);
      } else {
        CuckooFilterAggregate.checkFppSizedFromData(fpp);
      }
    } catch (IllegalArgumentException e) {
      throw error(f + ": argument 3 (fpp): " + e.getMessage());
    }
    if (expected > 0) {
      try {
        CuckooFilterAggregate.checkExpectedItems(expected, fpp);
      } catch (IllegalArgumentException e) {
        throw error(f + ": argument 2 (expectedItems): " + e.getMessage());
      }
    }
    return CuckooFilterAggregate.create(List.of(args.get(0)), expected, fpp);
  }

  private static Expression buildMightContain(List<Expression> args) {
    if (args.size() < 2) {
      throw error(CuckooMightContain.NAME + " takes a filter and a key, got " + args.size() + " arguments");
    }
    checkConstantFilter(args.get(0), CuckooMightContain.NAME);
    List<Expression> keys = args.subList(1, args.size());
    List<Expression> filterKeys = subqueryFilterKeys(args.get(0));
    if (filterKeys != null && filterKeys.stream().allMatch(k -> KeyTypes.supported(k.dataType()))
        && keys.stream().allMatch(k -> KeyTypes.supported(k.dataType()))) {
      List<DataType> expected = filterKeys.stream().map(Expression::dataType).toList();
      List<DataType> actual = keys.stream().map(Expression::dataType).toList();
      if (!KeyTypes.hashAlike(expected, actual)) {
        throw error(CuckooMightContain.NAME + ": " + (keys.size() == 1 ? "argument 2 (key)" : "arguments 2 to "
            + args.size() + " (key)") + " of type " + String.join(", ", actual.stream().map(DataType::simpleString).toList())
            + " does not hash like the keys of the filter, cuckoo_filter(" + String.join(", ",
            filterKeys.stream().map(Expression::sql).toList()) + ") of type " + String.join(", ",
            expected.stream().map(DataType::simpleString).toList()) + " (" + KeyTypes.flatCategories(actual) + " vs "
            + KeyTypes.flatCategories(expected) + "): it would not be found; cast it to the filter's key type");
      }
      String reordered = KeyTypes.reorderedStruct(expected, actual);
      if (reordered != null) {
        throw error(CuckooMightContain.NAME + ": " + (keys.size() == 1 ? "argument 2 (key)" : "arguments 2 to "
            + args.size() + " (key)") + " has the fields of the struct key of the filter, cuckoo_filter(" + String.join(
            ", ", filterKeys.stream().map(Expression::sql).toList()) + "), in another order (" + reordered + "): a "
            + "struct key hashes its fields in order, so it would not be found; list them in the filter's order");
      }
    }
    return CuckooMightContain.create(args.get(0), keys);
  }

  /**
   * The keys of the {@code cuckoo_filter} aggregate a scalar subquery returns, followed through the
   * aliases of its projections ({@code (SELECT cuckoo_filter(k) FROM t)}, {@code (SELECT f FROM (SELECT
   * cuckoo_filter(k) AS f FROM t))}); null if the filter comes from anywhere else.
   */
  private static List<Expression> subqueryFilterKeys(Expression filter) {
    if (!(filter instanceof ScalarSubquery)) {
      return null;
    }
    LogicalPlan plan = ((ScalarSubquery) filter).plan();
    if (plan.output().size() != 1) {
      return null;
    }
    ExprId id = plan.output().head().exprId();
    for (int depth = 0; depth < 64; depth++) {
      Alias alias = findAlias(plan, id);
      if (alias == null) {
        return null;
      }
      Expression value = alias.child();
      if (value instanceof AggregateExpression
          && ((AggregateExpression) value).aggregateFunction() instanceof CuckooFilterAggregate) {
        return list(((AggregateExpression) value).aggregateFunction().children());
      }
      if (!(value instanceof Attribute)) {
        return null;
      }
      id = ((Attribute) value).exprId();
    }
    return null;
  }

  /**
   * The alias that defines {@code id} in the plan's projections and aggregates, or null. Also null past a
   * union that outputs {@code id}: its output attributes are its first branch's, but its rows come from
   * every branch, whose filters may have keys of other types.
   */
  private static Alias findAlias(LogicalPlan plan, ExprId id) {
    if (plan instanceof Union && list(plan.output()).stream().anyMatch(a -> a.exprId().equals(id))) {
      return null;
    }
    for (Expression e : list(plan.expressions())) {
      if (e instanceof Alias && ((Alias) e).exprId().equals(id)) {
        return (Alias) e;
      }
    }
    for (LogicalPlan child : list(plan.children())) {
      Alias a = findAlias(child, id);
      if (a != null) {
        return a;
      }
    }
    return null;
  }

  private static Expression buildInfo(List<Expression> args) {
    if (args.size() != 1) {
      throw error(CuckooFilterInfo.NAME + " takes 1 argument (filter), got " + args.size());
    }
    checkConstantFilter(args.get(0), CuckooFilterInfo.NAME);
    return new CuckooFilterInfo(args.get(0));
  }

  /**
   * A constant filter argument must be the bytes of a filter: checked here, once, at analysis (the
   * builder's arguments are resolved). Other filter arguments are read, and checked, when the query runs.
   */
  private static void checkConstantFilter(Expression filter, String function) {
    if (filter.foldable() && filter.dataType() instanceof BinaryType) {
      Object bytes = filter.eval(null);
      if (bytes != null) {
        try {
          FilterHandle.check((byte[]) bytes, function);
        } catch (IllegalArgumentException e) {
          throw error(e.getMessage());
        }
      }
    }
  }

  private static boolean isNullLiteral(Expression e) {
    return e.foldable() && e.eval(null) == null;
  }

  private static long constantLong(Expression e, String function, int position, String name) {
    DataType t = e.dataType();
    if (!e.foldable() || !(t instanceof LongType || t instanceof IntegerType || t instanceof ShortType
        || t instanceof ByteType || (t instanceof DecimalType && ((DecimalType) t).scale() == 0))) {
      throw error(function + ": argument " + position + " (" + name + ") must be an integer constant, got "
          + e.sql() + " of type " + t.simpleString());
    }
    Object v = e.eval(null);
    if (v instanceof org.apache.spark.sql.types.Decimal) {
      try {
        return ((org.apache.spark.sql.types.Decimal) v).toJavaBigDecimal().longValueExact();
      } catch (ArithmeticException tooLarge) {
        throw error(function + ": argument " + position + " (" + name + ") is too large, got " + v);
      }
    }
    return ((Number) v).longValue();
  }

  private static double constantDouble(Expression e, String function, int position, String name) {
    DataType t = e.dataType();
    if (!e.foldable() || !(t instanceof DoubleType || t instanceof FloatType || t instanceof DecimalType
        || t instanceof LongType || t instanceof IntegerType || t instanceof ShortType || t instanceof ByteType)) {
      throw error(function + ": argument " + position + " (" + name + ") must be a numeric constant, got "
          + e.sql() + " of type " + t.simpleString());
    }
    Object v = e.eval(null);
    if (v == null) {
      throw error(function + ": argument " + position + " (" + name + ") must not be null");
    }
    return v instanceof org.apache.spark.sql.types.Decimal
        ? ((org.apache.spark.sql.types.Decimal) v).toDouble()
        : ((Number) v).doubleValue();
  }

  /**
   * Throws an AnalysisException (checked in Java's eyes, unchecked in Scala's, like Spark's own function
   * builders), so bad arguments fail the query at analysis with the message.
   */
  static RuntimeException error(String message) {
    return sneakyThrow(new AnalysisException(message, Option.empty(), Option.empty(), Option.empty(),
        Option.empty(), Map$.MODULE$.empty(), new QueryContext[0]));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneakyThrow(Throwable t) throws E {
    throw (E) t;
  }
}
