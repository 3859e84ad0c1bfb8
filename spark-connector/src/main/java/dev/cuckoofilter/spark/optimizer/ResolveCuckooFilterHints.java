package dev.cuckoofilter.spark.optimizer;

import static dev.cuckoofilter.spark.util.ScalaCollections.list;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute$;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.OuterReference;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.UnresolvedHint;
import org.apache.spark.sql.catalyst.plans.logical.UnresolvedWith;
import org.apache.spark.sql.catalyst.plans.logical.View;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StringType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Function2;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractPartialFunction;

/**
 * Resolves the hints {@code CUCKOO_FILTER} and {@code NO_CUCKOO_FILTER} into {@link CuckooFilterHint} nodes
 * (an analyzer resolution rule: Spark drops the hints it does not know only after the resolution batch).
 *
 * <p>With relation names ({@code SELECT /*+ CUCKOO_FILTER(o) *}{@code / ...}) the node goes on each relation
 * or alias of the hinted query block that the name matches, found as Spark finds those of a {@code
 * BROADCAST(o)} hint ({@code ResolveHints.ResolveJoinStrategyHints}): a name matches if it is the tail of the
 * relation's qualified name (so {@code o} matches {@code db.o}, {@code db.o} does not match {@code o}), in
 * the session's case sensitivity, and the search does not enter another alias, view or {@code WITH}. Without
 * names ({@code /*+ NO_CUCKOO_FILTER *}{@code /}, {@code df.hint("cuckoo_filter")}) the node goes on the
 * whole hinted plan. A name that matches nothing, a parameter that is not a name, or a plan with outer
 * references (a correlated subquery, where Catalyst allows no unknown operator above them) leaves the query
 * as it is, with a warning.
 */
public final class ResolveCuckooFilterHints extends Rule<LogicalPlan> {
  private static final Logger LOG = LoggerFactory.getLogger(ResolveCuckooFilterHints.class);

  @Override
  public String ruleName() {
    return "CuckooResolveFilterHints";
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    return plan.resolveOperatorsUp(new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
      @Override
      public boolean isDefinedAt(LogicalPlan p) {
        return p instanceof UnresolvedHint && CuckooFilterHint.Kind.named(((UnresolvedHint) p).name()) != null
            && ready(((UnresolvedHint) p).child());
      }

      @Override
      public LogicalPlan apply(LogicalPlan p) {
        return resolve((UnresolvedHint) p);
      }
    });
  }

  /**
   * The hinted plan is resolved, but for other hints on top that Spark removes later: only then are its
   * relations {@code SubqueryAlias} nodes, and its outer references known.
   */
  private static boolean ready(LogicalPlan child) {
    LogicalPlan p = child;
    while (p instanceof UnresolvedHint) {
      p = ((UnresolvedHint) p).child();
    }
    return p.resolved();
  }

  private static LogicalPlan resolve(UnresolvedHint hint) {
    CuckooFilterHint.Kind kind = CuckooFilterHint.Kind.named(hint.name());
    List<Object> parameters = list(hint.parameters());
    if (parameters.isEmpty()) {
      if (correlated(hint.child())) {
        LOG.warn("Ignoring hint {}: it is on a correlated subquery", kind.hintName());
        return hint.child();
      }
      return new CuckooFilterHint(hint.child(), kind, "");
    }
    List<List<String>> names = new ArrayList<>();
    for (Object parameter : parameters) {
      List<String> name = relationName(parameter);
      if (name == null) {
        LOG.warn("Ignoring parameter {} of hint {}: expected a relation name", parameter, kind.hintName());
      } else {
        names.add(name);
      }
    }
    Set<List<String>> matched = new LinkedHashSet<>();
    LogicalPlan applied = apply(hint.child(), kind, names, matched);
    for (List<String> name : names) {
      if (!matched.contains(name)) {
        LOG.warn("Ignoring hint {}({}): no relation of that name in the hinted query block", kind.hintName(),
            String.join(".", name));
      }
    }
    return applied;
  }

  /** {@code plan} with a hint node on each relation or alias that one of {@code names} matches. */
  private static LogicalPlan apply(LogicalPlan plan, CuckooFilterHint.Kind kind, List<List<String>> names,
      Set<List<String>> matched) {
    List<String> identifier = null;
    boolean descend = true;
    if (plan instanceof UnresolvedRelation) {
      identifier = list(((UnresolvedRelation) plan).multipartIdentifier());
    } else if (plan instanceof SubqueryAlias) {
      SubqueryAlias alias = (SubqueryAlias) plan;
      identifier = new ArrayList<>(list(alias.identifier().qualifier()));
      identifier.add(alias.identifier().name());
      descend = false; // another scope
    } else if (plan instanceof View || plan instanceof UnresolvedWith) {
      descend = false;
    }
    if (identifier != null) {
      List<String> name = matching(names, identifier);
      if (name != null) {
        if (correlated(plan)) {
          LOG.warn("Ignoring hint {}({}): that relation is a correlated subquery", kind.hintName(),
              String.join(".", name));
          matched.add(name);
          return plan;
        }
        matched.add(name);
        return new CuckooFilterHint(plan, kind, String.join(".", name));
      }
    }
    if (!descend) {
      return plan;
    }
    // Through other operators, and other hints: a join strategy hint (ResolvedHint) or one of ours on the same
    // relation.
    return plan.mapChildren(new AbstractFunction1<LogicalPlan, LogicalPlan>() {
      @Override
      public LogicalPlan apply(LogicalPlan child) {
        return ResolveCuckooFilterHints.apply(child, kind, names, matched);
      }
    });
  }

  /** The first of {@code names} that is a tail of {@code identifier}, or null. */
  private static List<String> matching(List<List<String>> names, List<String> identifier) {
    Function2<String, String, Object> resolver = SQLConf.get().resolver();
    for (List<String> name : names) {
      if (name.size() > identifier.size()) {
        continue;
      }
      List<String> tail = identifier.subList(identifier.size() - name.size(), identifier.size());
      boolean same = true;
      for (int i = 0; i < name.size() && same; i++) {
        same = (Boolean) resolver.apply(name.get(i), tail.get(i));
      }
      if (same) {
        return name;
      }
    }
    return null;
  }

  /** A relation name given as a hint parameter: {@code o}, {@code db.o} or {@code 'o'}; else null. */
  private static List<String> relationName(Object parameter) {
    if (parameter instanceof UnresolvedAttribute) {
      return list(((UnresolvedAttribute) parameter).nameParts());
    }
    String text = null;
    if (parameter instanceof String) {
      text = (String) parameter;
    } else if (parameter instanceof Literal && ((Literal) parameter).dataType() instanceof StringType
        && ((Literal) parameter).value() != null) {
      text = ((Literal) parameter).value().toString();
    }
    if (text == null) {
      return null;
    }
    try {
      return list(UnresolvedAttribute$.MODULE$.parseAttributeName(text));
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Whether {@code plan} refers to an outer query. Catalyst's analysis allows only some operators above such
   * references (CheckAnalysis), and a hint node is not one of them.
   */
  private static boolean correlated(LogicalPlan plan) {
    return plan.exists(new AbstractFunction1<LogicalPlan, Object>() {
      @Override
      public Object apply(LogicalPlan node) {
        for (Expression e : list(node.expressions())) {
          if (e.exists(new AbstractFunction1<Expression, Object>() {
            @Override
            public Object apply(Expression x) {
              return x instanceof OuterReference;
            }
          })) {
            return true;
          }
        }
        return false;
      }
    });
  }
}
