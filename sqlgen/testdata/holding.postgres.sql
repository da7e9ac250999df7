-- sdcaudit cell summaries (schema 1, docs/cells.md) for register.enterprises, dialect postgres
-- dims region, sector, size class; value turnover (scale 2); top 3; powers 1..4; holding enterprise_group
WITH sdc_src AS (
  SELECT "region", "sector", "size class",
    CASE WHEN "enterprise_group" IS NULL THEN CAST(CAST(concat('sdcaudit: a holding id in column enterprise_group is NULL; the value: ', CAST("enterprise_group" AS text), '') AS integer) AS text) ELSE CAST("enterprise_group" AS text) END AS sdc_h,
    CASE WHEN "turnover" IS NULL THEN NULL
      WHEN NOT (TRIM(CAST("turnover" AS text)) ~ '^[+-]?([0-9]+([.][0-9]{0,2}0*)?|[.][0-9]{1,2}0*)$')
      THEN CAST(CAST(concat('sdcaudit: a value in column turnover is not a decimal number with at most 2 decimals that fits DECIMAL(38, 2) (declare an exact numeric type, or set --value-decimals); the value: ', CAST("turnover" AS text), '') AS integer) AS NUMERIC(1000, 2))
      WHEN CAST(TRIM(CAST("turnover" AS text)) AS NUMERIC(1000, 2)) IS NULL
      THEN CAST(CAST(concat('sdcaudit: a value in column turnover is not a decimal number with at most 2 decimals that fits DECIMAL(38, 2) (declare an exact numeric type, or set --value-decimals); the value: ', CAST("turnover" AS text), '') AS integer) AS NUMERIC(1000, 2))
      ELSE CAST(TRIM(CAST("turnover" AS text)) AS NUMERIC(1000, 2)) END AS sdc_x
  FROM "register"."enterprises"
),
sdc_c1 AS (
  SELECT "region", "sector", "size class",
    GROUPING("region") * 4 + GROUPING("sector") * 2 + GROUPING("size class") * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) - COUNT(sdc_x) AS sdc_missing,
    SUM(sdc_x) AS sdc_cx,
    CASE WHEN COUNT(sdc_x) > 0 THEN 1 ELSE 0 END AS sdc_mult
  FROM sdc_src
  GROUP BY GROUPING SETS (("region", "sector", "size class", sdc_h), ("region", "sector", sdc_h), ("region", "size class", sdc_h), ("region", sdc_h), ("sector", "size class", sdc_h), ("sector", sdc_h), ("size class", sdc_h), (sdc_h))
),
sdc_c2 AS (
  SELECT sdc_c1.*,
    CAST(sdc_cx * 100 AS NUMERIC) AS sdc_m,
    LEAST(sdc_mult, GREATEST(3 - (SUM(sdc_mult) OVER (PARTITION BY sdc_gid, "region", "sector", "size class" ORDER BY sdc_cx DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - sdc_mult), 0)) AS sdc_take
  FROM sdc_c1
)
SELECT "region", "sector", "size class",
  sdc_gid AS "grouping_id",
  CAST(SUM(sdc_rows) AS BIGINT) AS "rows",
  CAST(SUM(sdc_mult) AS BIGINT) AS "n",
  CAST(SUM(sdc_missing) AS BIGINT) AS "missing",
  CAST(SUM(CASE WHEN sdc_cx < 0 THEN sdc_mult ELSE 0 END) AS BIGINT) AS "negative",
  COALESCE(SUM(sdc_mult * sdc_cx), 0) AS "total",
  MIN(sdc_cx) AS "min",
  MAX(sdc_cx) AS "max",
  COALESCE(rtrim(string_agg(repeat(CAST(sdc_cx AS text) || ';', CAST(sdc_take AS integer)), '' ORDER BY sdc_cx DESC), ';'), '') AS "top",
  2 AS "scale",
  COALESCE(SUM(sdc_mult * sdc_m), 0) AS "sum_pow_1",
  COALESCE(SUM(sdc_mult * CAST(sdc_m * sdc_m AS NUMERIC)), 0) AS "sum_pow_2",
  COALESCE(SUM(sdc_mult * CAST(CAST(sdc_m * sdc_m AS NUMERIC) * sdc_m AS NUMERIC)), 0) AS "sum_pow_3",
  COALESCE(SUM(sdc_mult * CAST(CAST(CAST(sdc_m * sdc_m AS NUMERIC) * sdc_m AS NUMERIC) * sdc_m AS NUMERIC)), 0) AS "sum_pow_4",
  '{"schema":1,"table":"register.enterprises","dims":["region","sector","size class"],"value":"turnover","holding":"enterprise_group","k":3,"powers":4,"scale":2,"engine":"postgres"}' AS "meta"
FROM sdc_c2
GROUP BY sdc_gid, "region", "sector", "size class"
ORDER BY 4, 1, 2, 3
