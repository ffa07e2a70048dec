#!/bin/sh
# gen.sh regenerates the real-tool fixtures of package coverage by running
# the tools themselves on the tiny projects beside this script, and saves
# what each tool printed next to its output (*.tool.txt). The tests read the
# expected numbers from those files, never from numbers typed in by hand.
#
# Needs: go, gcc, lcov, gcovr, python3-coverage, javac/java and Debian's
# libjacoco-java (apt-get install -y lcov gcovr python3-coverage libjacoco-java).
# Run from anywhere: sh coverage/testdata/gen/gen.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$out/go" "$out/lcov" "$out/cobertura" "$out/jacoco"

# --- Go: go test -coverprofile in the three modes, and -coverpkg ----------
cd "$here/gomod"
for mode in set count atomic; do
	go test -count=1 -covermode=$mode -coverprofile="$out/go/$mode.out" ./... |
		sed 's/\t[0-9.]*s\t/\t/' >"$out/go/$mode.tool.txt"
	go tool cover -func="$out/go/$mode.out" >>"$out/go/$mode.tool.txt"
done
# Every test binary of a -coverpkg run reports every package, so the same
# file appears several times in the profile.
go test -count=1 -coverpkg=./... -coverprofile="$out/go/coverpkg.out" ./... >/dev/null
go tool cover -func="$out/go/coverpkg.out" >"$out/go/coverpkg.tool.txt"
# The merged per-package percentages, as the go tool computes them.
mkdir "$work/covdata"
go test -count=1 -cover -coverpkg=./... ./... -args -test.gocoverdir="$work/covdata" >/dev/null
go tool covdata percent -i="$work/covdata" >>"$out/go/coverpkg.tool.txt"

# --- C: gcc --coverage, lcov --capture, gcovr --------------------------------
cp -r "$here/cprog" "$work/cprog"
cd "$work/cprog"
gcc --coverage -O0 -o prog main.c shapes.c
./prog >/dev/null
lcov --quiet --capture --directory . --output-file run1.info
lcov --quiet --zerocounters --directory .
./prog a b c d e f >/dev/null
lcov --quiet --capture --directory . --output-file run2.info
# Tracefile paths are made relative to the project (the numbers are untouched).
sed "s|$work/cprog/||" run1.info >"$out/lcov/c.info"
(cd "$out/lcov" && lcov --summary c.info >c.info.tool.txt 2>&1)
# Two captures concatenated: every SF appears twice, as in merged CI output.
sed "s|$work/cprog/||" run2.info >>"$work/run2.info"
cat "$out/lcov/c.info" "$work/run2.info" >"$out/lcov/concat.info"
(cd "$out/lcov" && lcov --summary concat.info >concat.info.tool.txt 2>&1)
# gcovr reads the gcda files of the second run.
gcovr --root . --cobertura "$out/cobertura/gcovr.xml"
gcovr --root . >"$out/cobertura/gcovr.xml.tool.txt"

# Hand-written LCOV edge cases, summarized by the real lcov.
cd "$out/lcov"
for f in hand-*.info; do
	[ -e "$f" ] || continue
	lcov --summary "$f" >"$f.tool.txt" 2>&1 || true
done

# --- Python: coverage.py xml and lcov ----------------------------------------
cp -r "$here/pymod" "$work/pymod"
cd "$work/pymod"
python3-coverage run --source=. run.py
python3-coverage xml -o "$out/cobertura/python.xml"
python3-coverage report >"$out/cobertura/python.xml.tool.txt"
python3-coverage lcov -o "$out/lcov/python.info"
(cd "$out/lcov" && lcov --summary python.info >python.info.tool.txt 2>&1)
# coverage.py writes absolute paths in <sources>; keep the fixture portable.
sed -i "s|<source>$work/pymod</source>|<source>pymod</source>|" "$out/cobertura/python.xml"

# --- Java: the JaCoCo agent and report API (Debian libjacoco-java) ----------
jars=/usr/share/java
cp -r "$here/java" "$work/java"
cd "$work/java"
mkdir classes
javac --release 11 -d classes src/demo/*.java
# Debian's org.jacoco.agent.jar wraps the runnable agent, jacocoagent.jar.
jar xf $jars/org.jacoco.agent.jar jacocoagent.jar
java -javaagent:jacocoagent.jar=destfile=jacoco.exec -cp classes demo.Main >/dev/null
cp=$jars/org.jacoco.core.jar:$jars/org.jacoco.report.jar:$jars/asm.jar:$jars/asm-commons.jar:$jars/asm-tree.jar
javac -cp "$cp" -d . Report.java
java -cp "$cp:." Report jacoco.exec classes src "$out/jacoco/demo.xml" >"$out/jacoco/demo.xml.tool.txt"

echo "fixtures written under $out"
