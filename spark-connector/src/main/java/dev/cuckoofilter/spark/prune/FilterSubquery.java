package dev.cuckoofilter.spark.prune;

import static dev.cuckoofilter.spark.util.ScalaCollections.seq;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.expressions.CuckooMightContain;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.ScalarSubquery;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import scala.Option;

/**
 * A pruning predicate whose filter is built by the query itself:
 * {@code cuckoo_might_contain((SELECT cuckoo_filter(creationKeys) FROM creation), keys)}, the filter sized
 * from the exact number of distinct keys. Used by the runtime filter rule and by the one-call DataFrame
 * API. When the creation side is also shuffled for the join, the extension's
 * {@code ShareCreationSideShuffle} builds the filter from that shuffle's map tasks instead of a second scan.
 */
public final class FilterSubquery {
  private FilterSubquery() {}

  /**
   * @param creation     the plan whose keys the filter holds (analyzed)
   * @param creationKeys expressions over {@code creation}'s output
   * @param keys         the probed side's keys, in the same order
   */
  public static CuckooMightContain probe(LogicalPlan creation, List<Expression> creationKeys, double fpp,
      List<Expression> keys) {
    List<NamedExpression> projected = new ArrayList<>();
    List<Expression> projectedKeys = new ArrayList<>();
    for (int i = 0; i < creationKeys.size(); i++) {
      Alias alias = alias(creationKeys.get(i), "cuckoo_key_" + i);
      projected.add(alias);
      projectedKeys.add(alias.toAttribute());
    }
    Expression build = CuckooFilterAggregate.create(projectedKeys, 0, fpp).toAggregateExpression();
    LogicalPlan aggregate = new Aggregate(seq(List.of()), seq(List.of(alias(build, "cuckoo_filter"))),
        new Project(seq(projected), creation));
    ScalarSubquery filter = new ScalarSubquery(aggregate, seq(List.of()), NamedExpression$.MODULE$.newExprId(),
        seq(List.of()), Option.empty(), Option.empty());
    return CuckooMightContain.create(filter, keys);
  }

  private static Alias alias(Expression e, String name) {
    return new Alias(e, name, NamedExpression$.MODULE$.newExprId(), seq(List.of()), Option.empty(), seq(List.of()));
  }

}
