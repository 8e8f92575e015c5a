#!/usr/bin/env bash
# Makes a release: `bash scripts/release.sh 0.1.0`, in a clean checkout of the commit to release,
# after `npm ci` (docs/releasing.md is the whole procedure).
#
# Checks that package.json says that version, that CHANGELOG.md has a dated section for it
# (`## [0.1.0] - 2026-12-31`), that the working tree is clean and that the tag does not exist;
# builds dist/ (npm run build); makes one commit on top of HEAD whose tree is HEAD's plus dist/
# (so that the Action, run from the tag, installs no TypeScript and builds nothing:
# scripts/actionInstall.mjs), tags it `v0.1.0` (annotated), and packs jobcheck-0.1.0.tgz from the
# same tree. The branch, the index and the working tree's tracked files are left as they were: the
# release commit is reachable from its tag only. It pushes nothing and publishes nothing.
set -euo pipefail

die() {
  echo "release.sh: $*" >&2
  exit 2
}

[ "$#" -eq 1 ] || die "usage: scripts/release.sh <version>   (e.g. scripts/release.sh 0.1.0)"
version="$1"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "the version must be X.Y.Z (got \"$version\")"
tag="v$version"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

declared="$(node -p 'require("./package.json").version')"
[ "$declared" = "$version" ] || die "package.json says version $declared, not $version (npm version $version --no-git-tag-version)"
grep -Eq "^## \[$version\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$" CHANGELOG.md ||
  die "CHANGELOG.md has no dated section \"## [$version] - YYYY-MM-DD\""
[ -z "$(git status --porcelain)" ] || die "the working tree is not clean (changed or untracked files): commit or remove them first"
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then die "the tag $tag exists already"; fi

npm run build
node scripts/build.mjs --is-current >/dev/null || die "dist/ is not current after the build"

# The release tree, HEAD's plus dist/, written through an index of its own.
index_dir="$(mktemp -d)"
trap 'rm -rf "$index_dir"' EXIT
export GIT_INDEX_FILE="$index_dir/index"
git read-tree HEAD
git add --force dist
tree="$(git write-tree)"
unset GIT_INDEX_FILE
commit="$(git commit-tree "$tree" -p HEAD -m "jobcheck $version: the release, with dist/ built")"
git tag -a "$tag" "$commit" -m "jobcheck $version"

npm pack --ignore-scripts --loglevel=error >/dev/null
echo "release.sh: tagged $tag ($commit, HEAD plus dist/) and packed jobcheck-$version.tgz" >&2
echo "release.sh: next: git push origin $tag; make a GitHub release of $tag with the CHANGELOG's section as its notes and jobcheck-$version.tgz attached" >&2
