import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;

import org.jacoco.core.analysis.Analyzer;
import org.jacoco.core.analysis.CoverageBuilder;
import org.jacoco.core.analysis.IBundleCoverage;
import org.jacoco.core.analysis.ICounter;
import org.jacoco.core.tools.ExecFileLoader;
import org.jacoco.report.DirectorySourceFileLocator;
import org.jacoco.report.IReportVisitor;
import org.jacoco.report.xml.XMLFormatter;

/**
 * Writes a JaCoCo XML report with the JaCoCo report API (Debian ships the
 * library jars but no CLI) and prints JaCoCo's own line counter.
 * Usage: Report EXECFILE CLASSDIR SRCDIR OUT.xml
 */
public class Report {
    public static void main(String[] args) throws IOException {
        ExecFileLoader loader = new ExecFileLoader();
        loader.load(new File(args[0]));
        CoverageBuilder builder = new CoverageBuilder();
        new Analyzer(loader.getExecutionDataStore(), builder).analyzeAll(new File(args[1]));
        IBundleCoverage bundle = builder.getBundle("demo");
        try (OutputStream out = new FileOutputStream(args[3])) {
            IReportVisitor v = new XMLFormatter().createVisitor(out);
            v.visitInfo(loader.getSessionInfoStore().getInfos(), loader.getExecutionDataStore().getContents());
            v.visitBundle(bundle, new DirectorySourceFileLocator(new File(args[2]), "utf-8", 4));
            v.visitEnd();
        }
        ICounter lines = bundle.getLineCounter();
        System.out.printf("jacoco LINE covered=%d missed=%d total=%d%n",
                lines.getCoveredCount(), lines.getMissedCount(), lines.getTotalCount());
    }
}
