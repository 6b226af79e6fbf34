-- Claims below tier reported, with their sources.
SELECT claim, about, labels.label, property, value, tier, basis, STRING_AGG(DISTINCT source, ' ') AS sources
FROM claims LEFT JOIN claim_sources USING (claim) LEFT JOIN labels ON labels.node = claims.about
WHERE "tierRank" < 2
GROUP BY claim, about, labels.label, property, value, tier, basis, "tierRank"
ORDER BY "tierRank", about, claim, labels.label
