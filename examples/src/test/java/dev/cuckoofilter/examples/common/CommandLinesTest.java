package dev.cuckoofilter.examples.common;

import static dev.cuckoofilter.examples.ChildProcess.inProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.examples.ChildProcess.Result;
import dev.cuckoofilter.examples.cli.CuckooCli;
import dev.cuckoofilter.examples.jobs.BuildFilterJob;
import dev.cuckoofilter.examples.jobs.PruneJoinJob;
import dev.cuckoofilter.examples.jobs.UpdateFilterJob;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The command lines of the jobs and the tool: usage on {@code --help}, and bad arguments refused with exit
 * code 2 and one line naming the problem, before anything runs (no Spark session is started here).
 */
class CommandLinesTest {
  @Test
  void everyJobAndSubcommandHasHelp() {
    List<Supplier<Object>> jobs = List.of(BuildFilterJob::new, UpdateFilterJob::new, PruneJoinJob::new);
    List<String> names = List.of("build-filter", "update-filter", "prune-join");
    for (int i = 0; i < jobs.size(); i++) {
      Result help = inProcess(jobs.get(i).get(), "--help");
      assertEquals(ExitCodes.OK, help.exitCode(), help.stderr());
      assertTrue(help.stdout().startsWith("Usage: " + names.get(i) + " "), help.stdout());
    }
    for (String subcommand : List.of("info", "contains", "verify", "merge", "diff", "build")) {
      Result help = inProcess(new CuckooCli(), subcommand, "--help");
      assertEquals(ExitCodes.OK, help.exitCode(), help.stderr());
      assertTrue(help.stdout().startsWith("Usage: cuckoo " + subcommand + " "), help.stdout());
    }
  }

  @Test
  void badArgumentsAreRefusedNamingTheProblem() {
    Result missing = inProcess(new BuildFilterJob(), "--input", "/data/customers", "--keys", "id");
    assertEquals(ExitCodes.USAGE, missing.exitCode());
    assertEquals("build-filter: error: Missing required option: '--location=URI'\n"
        + "Try 'build-filter --help' for the options.\n", missing.stderr());

    Result headroom = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f", "--headroom", "1");
    assertEquals(ExitCodes.USAGE, headroom.exitCode());
    assertTrue(headroom.stderr().startsWith("build-filter: error: --headroom must be between 1.05 and 1000.0, got 1.0\n"),
        headroom.stderr());

    // sizing that no filter can meet: refused before Spark starts, not by a failed Spark job
    Result unreachableFpp = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f", "--fpp",
        "1e-300");
    assertEquals(ExitCodes.USAGE, unreachableFpp.exitCode(), unreachableFpp.stderr());
    assertTrue(unreachableFpp.stderr().startsWith("build-filter: error: --fpp 1.0E-300 cannot be met: fpp 1.0E-300 is "
        + "below what 32-bit fingerprints can deliver: fpp must be at least "), unreachableFpp.stderr());
    Result tooManyItems = inProcess(new BuildFilterJob(), "--input", "/d", "--keys", "id", "--location", "/f",
        "--expected-items", "99999999999999999");
    assertEquals(ExitCodes.USAGE, tooManyItems.exitCode(), tooManyItems.stderr());
    assertTrue(tooManyItems.stderr().startsWith("build-filter: error: --expected-items 99999999999999999 with --fpp 0.01 "
        + "cannot be met: expectedItems must be at most "), tooManyItems.stderr());

    Result halfASnapshot = inProcess(new UpdateFilterJob(), "--location", "/f", "--before", "/b");
    assertEquals(ExitCodes.USAGE, halfASnapshot.exitCode());
    assertTrue(halfASnapshot.stderr().startsWith("update-filter: error: Missing required argument(s): --after"),
        halfASnapshot.stderr());

    Result noChange = inProcess(new UpdateFilterJob(), "--location", "/f", "--current", "/d");
    assertEquals(ExitCodes.USAGE, noChange.exitCode());
    assertTrue(noChange.stderr().startsWith("update-filter: error: with --current, give --added, --deleted or both\n"),
        noChange.stderr());

    Result bothForms = inProcess(new UpdateFilterJob(), "--location", "/f", "--current", "/d", "--added", "/a", "--before",
        "/b", "--after", "/c");
    assertEquals(ExitCodes.USAGE, bothForms.exitCode());
    assertTrue(bothForms.stderr().contains("are mutually exclusive"), bothForms.stderr());

    Result outerJoin = inProcess(new PruneJoinJob(), "--location", "/f", "--input", "/i", "--join-with", "/j", "--output",
        "/o", "--join-type", "left_outer");
    assertEquals(ExitCodes.USAGE, outerJoin.exitCode());
    assertTrue(outerJoin.stderr().startsWith("prune-join: error: --join-type left_outer: the left side of a left_outer "
        + "join keeps its rows without a match; pruning them would change the result\n"), outerJoin.stderr());

    Result badVersion = inProcess(new CuckooCli(), "info", "/f@0");
    assertEquals(ExitCodes.USAGE, badVersion.exitCode());
    assertTrue(badVersion.stderr().contains("'/f@0' is not LOCATION or LOCATION@VERSION: versions are numbered from 1"),
        badVersion.stderr());

    Result noSubcommand = inProcess(new CuckooCli());
    assertEquals(ExitCodes.USAGE, noSubcommand.exitCode());
    assertTrue(noSubcommand.stderr().startsWith("cuckoo: error: a subcommand is needed\nUsage: cuckoo "),
        noSubcommand.stderr());
  }
}
