-- Every derived claim with its rule, its inputs and their tiers.
SELECT claims.claim, claims.about, claims.property, claims.value, claims.tier, claim_rules.rule,
       COUNT(DISTINCT derivations.input) AS input_count,
       STRING_AGG(DISTINCT derivations.input, ' ') AS inputs,
       STRING_AGG(DISTINCT inputs.tier, ' ') AS input_tiers
FROM claims
LEFT JOIN claim_rules USING (claim)
LEFT JOIN derivations USING (claim)
LEFT JOIN claims AS inputs ON inputs.claim = derivations.input
WHERE claims.derived = 'true'
GROUP BY ALL
ORDER BY claim_rules.rule, claims.about, claims.claim
