-- sdcaudit cell summaries (schema 1, docs/cells.md) for survey, dialect postgres
-- dims region, sector, year; value income (scale 3); top 2; powers 1..3
WITH sdc_src AS (
  SELECT "region", "sector", "year",
    CASE WHEN "income" IS NULL THEN NULL
      WHEN NOT (TRIM(CAST("income" AS text)) ~ '^[+-]?([0-9]+([.][0-9]{0,3}0*)?|[.][0-9]{1,3}0*)$')
      THEN CAST(CAST(concat('sdcaudit: a value in column income is not a decimal number with at most 3 decimals that fits DECIMAL(38, 3) (declare an exact numeric type, or set --value-decimals); the value: ', CAST("income" AS text), '') AS integer) AS NUMERIC(1000, 3))
      WHEN CAST(TRIM(CAST("income" AS text)) AS NUMERIC(1000, 3)) IS NULL
      THEN CAST(CAST(concat('sdcaudit: a value in column income is not a decimal number with at most 3 decimals that fits DECIMAL(38, 3) (declare an exact numeric type, or set --value-decimals); the value: ', CAST("income" AS text), '') AS integer) AS NUMERIC(1000, 3))
      ELSE CAST(TRIM(CAST("income" AS text)) AS NUMERIC(1000, 3)) END AS sdc_x
  FROM "survey"
),
sdc_c1 AS (
  SELECT "region", "sector", "year",
    GROUPING("region") * 4 + GROUPING("sector") * 2 + GROUPING("year") * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) - COUNT(sdc_x) AS sdc_missing,
    sdc_x AS sdc_cx,
    COUNT(sdc_x) AS sdc_mult
  FROM sdc_src
  GROUP BY GROUPING SETS (("region", "sector", "year", sdc_x), ("region", "sector", sdc_x), ("region", "year", sdc_x), ("region", sdc_x), ("sector", "year", sdc_x), ("sector", sdc_x), ("year", sdc_x), (sdc_x))
),
sdc_c2 AS (
  SELECT sdc_c1.*,
    CAST(sdc_cx * 1000 AS NUMERIC) AS sdc_m,
    LEAST(sdc_mult, GREATEST(2 - (SUM(sdc_mult) OVER (PARTITION BY sdc_gid, "region", "sector", "year" ORDER BY sdc_cx DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - sdc_mult), 0)) AS sdc_take
  FROM sdc_c1
)
SELECT "region", "sector", "year",
  sdc_gid AS "grouping_id",
  CAST(SUM(sdc_rows) AS BIGINT) AS "rows",
  CAST(SUM(sdc_mult) AS BIGINT) AS "n",
  CAST(SUM(sdc_missing) AS BIGINT) AS "missing",
  CAST(SUM(CASE WHEN sdc_cx < 0 THEN sdc_mult ELSE 0 END) AS BIGINT) AS "negative",
  COALESCE(SUM(sdc_mult * sdc_cx), 0) AS "total",
  MIN(sdc_cx) AS "min",
  MAX(sdc_cx) AS "max",
  COALESCE(rtrim(string_agg(repeat(CAST(sdc_cx AS text) || ';', CAST(sdc_take AS integer)), '' ORDER BY sdc_cx DESC), ';'), '') AS "top",
  3 AS "scale",
  COALESCE(SUM(sdc_mult * sdc_m), 0) AS "sum_pow_1",
  COALESCE(SUM(sdc_mult * CAST(sdc_m * sdc_m AS NUMERIC)), 0) AS "sum_pow_2",
  COALESCE(SUM(sdc_mult * CAST(CAST(sdc_m * sdc_m AS NUMERIC) * sdc_m AS NUMERIC)), 0) AS "sum_pow_3",
  '{"schema":1,"table":"survey","dims":["region","sector","year"],"value":"income","k":2,"powers":3,"scale":3,"engine":"postgres"}' AS "meta"
FROM sdc_c2
GROUP BY sdc_gid, "region", "sector", "year"
ORDER BY 4, 1, 2, 3
