-- sdcaudit cell summaries (schema 1, docs/cells.md) for survey, dialect duckdb
-- dims region, sector, year; value income (scale 3); top 2; powers 1..3
WITH sdc_src0 AS (
  SELECT "region", "sector", "year",
    CASE WHEN "income" IS NULL THEN NULL
      WHEN NOT regexp_full_match(TRIM(CAST("income" AS VARCHAR)), '^[+-]?([0-9]+([.][0-9]{0,3}0*)?|[.][0-9]{1,3}0*)$')
      THEN CAST(error('sdcaudit: a value in column income is not a decimal number with at most 3 decimals that fits DECIMAL(38, 3) (declare an exact numeric type, or set --value-decimals)') AS DECIMAL(38, 3))
      WHEN CASE WHEN length(TRIM(CAST("income" AS VARCHAR))) <= 15 THEN CAST(CAST(TRIM(CAST("income" AS VARCHAR)) AS DECIMAL(18, 3)) AS DECIMAL(38, 3)) ELSE CAST(TRIM(CAST("income" AS VARCHAR)) AS DECIMAL(38, 3)) END IS NULL
      THEN CAST(error('sdcaudit: a value in column income is not a decimal number with at most 3 decimals that fits DECIMAL(38, 3) (declare an exact numeric type, or set --value-decimals)') AS DECIMAL(38, 3))
      ELSE CASE WHEN length(TRIM(CAST("income" AS VARCHAR))) <= 15 THEN CAST(CAST(TRIM(CAST("income" AS VARCHAR)) AS DECIMAL(18, 3)) AS DECIMAL(38, 3)) ELSE CAST(TRIM(CAST("income" AS VARCHAR)) AS DECIMAL(38, 3)) END END AS sdc_x
  FROM "survey"
),
sdc_src AS (
  SELECT *, CAST(sdc_x * 1000 AS DECIMAL(38, 0)) AS sdc_xm FROM sdc_src0
),
sdc_c1 AS (
  SELECT "region", "sector", "year",
    GROUPING("region") * 4 + GROUPING("sector") * 2 + GROUPING("year") * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) - COUNT(sdc_x) AS sdc_missing,
    sdc_x AS sdc_cx,
    COUNT(sdc_x) AS sdc_mult,
    MIN(sdc_xm) AS sdc_cm
  FROM sdc_src
  GROUP BY GROUPING SETS (("region", "sector", "year", sdc_x), ("region", "sector", sdc_x), ("region", "year", sdc_x), ("region", sdc_x), ("sector", "year", sdc_x), ("sector", sdc_x), ("year", sdc_x), (sdc_x))
),
sdc_c2 AS (
  SELECT sdc_c1.*,
    sdc_cm AS sdc_m,
    LEAST(sdc_mult, GREATEST(2 - (SUM(sdc_mult) OVER (PARTITION BY sdc_gid, "region", "sector", "year" ORDER BY sdc_cx DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - sdc_mult), 0)) AS sdc_take,
    CAST(ABS(sdc_m) AS HUGEINT) AS sdc_a,
    CASE WHEN sdc_m < 0 THEN -1 ELSE 1 END AS sdc_sg,
    sdc_a & 1152921504606846975 AS sdc_p1_0,
    (sdc_a >> 60) & 1152921504606846975 AS sdc_p1_1,
    sdc_a >> 120 AS sdc_p1_2
  FROM sdc_c1
),
sdc_v2 AS (
  SELECT sdc_c2.*,
    sdc_p1_0 * sdc_p1_0 AS sdc_v2_0,
    sdc_p1_0 * sdc_p1_1 + sdc_p1_1 * sdc_p1_0 AS sdc_v2_1,
    sdc_p1_0 * sdc_p1_2 + sdc_p1_1 * sdc_p1_1 + sdc_p1_2 * sdc_p1_0 AS sdc_v2_2,
    sdc_p1_1 * sdc_p1_2 + sdc_p1_2 * sdc_p1_1 AS sdc_v2_3,
    sdc_p1_2 * sdc_p1_2 AS sdc_v2_4
  FROM sdc_c2
),
sdc_l2 AS (
  SELECT sdc_v2.*,
    (sdc_v2_0 & 1152921504606846975) AS sdc_p2_0,
    (sdc_v2_1 & 1152921504606846975) + ((sdc_v2_0 >> 60) & 1152921504606846975) AS sdc_p2_1,
    (sdc_v2_2 & 1152921504606846975) + ((sdc_v2_1 >> 60) & 1152921504606846975) + (sdc_v2_0 >> 120) AS sdc_p2_2,
    (sdc_v2_3 & 1152921504606846975) + ((sdc_v2_2 >> 60) & 1152921504606846975) + (sdc_v2_1 >> 120) AS sdc_p2_3,
    (sdc_v2_4 & 1152921504606846975) + ((sdc_v2_3 >> 60) & 1152921504606846975) + (sdc_v2_2 >> 120) AS sdc_p2_4
  FROM sdc_v2
),
sdc_v3 AS (
  SELECT sdc_l2.*,
    sdc_p2_0 * sdc_p1_0 AS sdc_v3_0,
    sdc_p2_0 * sdc_p1_1 + sdc_p2_1 * sdc_p1_0 AS sdc_v3_1,
    sdc_p2_0 * sdc_p1_2 + sdc_p2_1 * sdc_p1_1 + sdc_p2_2 * sdc_p1_0 AS sdc_v3_2,
    sdc_p2_1 * sdc_p1_2 + sdc_p2_2 * sdc_p1_1 + sdc_p2_3 * sdc_p1_0 AS sdc_v3_3,
    sdc_p2_2 * sdc_p1_2 + sdc_p2_3 * sdc_p1_1 + sdc_p2_4 * sdc_p1_0 AS sdc_v3_4,
    sdc_p2_3 * sdc_p1_2 + sdc_p2_4 * sdc_p1_1 AS sdc_v3_5,
    sdc_p2_4 * sdc_p1_2 AS sdc_v3_6
  FROM sdc_l2
),
sdc_l3 AS (
  SELECT sdc_v3.*,
    (sdc_v3_0 & 1152921504606846975) AS sdc_p3_0,
    (sdc_v3_1 & 1152921504606846975) + ((sdc_v3_0 >> 60) & 1152921504606846975) AS sdc_p3_1,
    (sdc_v3_2 & 1152921504606846975) + ((sdc_v3_1 >> 60) & 1152921504606846975) + (sdc_v3_0 >> 120) AS sdc_p3_2,
    (sdc_v3_3 & 1152921504606846975) + ((sdc_v3_2 >> 60) & 1152921504606846975) + (sdc_v3_1 >> 120) AS sdc_p3_3,
    (sdc_v3_4 & 1152921504606846975) + ((sdc_v3_3 >> 60) & 1152921504606846975) + (sdc_v3_2 >> 120) AS sdc_p3_4,
    (sdc_v3_5 & 1152921504606846975) + ((sdc_v3_4 >> 60) & 1152921504606846975) + (sdc_v3_3 >> 120) AS sdc_p3_5,
    (sdc_v3_6 & 1152921504606846975) + ((sdc_v3_5 >> 60) & 1152921504606846975) + (sdc_v3_4 >> 120) AS sdc_p3_6
  FROM sdc_v3
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
  COALESCE(rtrim(string_agg(repeat(CAST(sdc_cx AS VARCHAR) || ';', CAST(sdc_take AS BIGINT)), '' ORDER BY sdc_cx DESC), ';'), '') AS "top",
  3 AS "scale",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p1_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_1_limb_0",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p1_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_1_limb_1",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p1_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_1_limb_2",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_0",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_1",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_2",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_3), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_3",
  CAST(COALESCE(SUM(sdc_mult * sdc_p2_4), 0) AS DECIMAL(38, 0)) AS "sum_pow_2_limb_4",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_0), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_0",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_1), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_1",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_2), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_2",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_3), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_3",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_4), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_4",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_5), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_5",
  CAST(COALESCE(SUM(sdc_sg * sdc_mult * sdc_p3_6), 0) AS DECIMAL(38, 0)) AS "sum_pow_3_limb_6",
  '{"schema":1,"table":"survey","dims":["region","sector","year"],"value":"income","k":2,"powers":3,"scale":3,"engine":"duckdb","limb_bits":60}' AS "meta"
FROM sdc_l3
GROUP BY sdc_gid, "region", "sector", "year"
ORDER BY 4, 1, 2, 3
